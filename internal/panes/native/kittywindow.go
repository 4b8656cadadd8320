package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/program"
)

// KittyWindow is one window of a kitty, reached by remote control at
// Addr (its KITTY_LISTEN_ON) by its id (KITTY_WINDOW_ID): a window of the
// person's that paneteam was told of, not one it opened, read and typed
// into for them (Claude's lead's, recorded at its start).
type KittyWindow struct {
	Bin  string // the kitty program
	Addr string
	ID   string
}

// ErrNoKittyWindow: kitty answers, but has no window of that id.
var ErrNoKittyWindow = errors.New("kitty has no such window")

func (w KittyWindow) rc(ctx context.Context, stdin string, args ...string) (string, error) {
	if _, err := strconv.Atoi(w.ID); err != nil {
		return "", fmt.Errorf("kitty window id %q is not a number", w.ID)
	}
	cmd := program.Cmd{Path: w.Bin, Name: "kitty", Args: append([]string{"@", "--to", w.Addr}, args...),
		Env: cliEnviron(func(string) string { return "" }, "KITTY_LISTEN_ON", "KITTY_WINDOW_ID"), DefaultTimeout: kittyCallTimeout}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	return program.Output(ctx, cmd)
}

// PID is the process kitty started in the window (its shell, or the
// program it was given), ErrNoKittyWindow when the window is gone.
func (w KittyWindow) PID(ctx context.Context) (int, error) {
	pid, _, err := w.Processes(ctx)
	return pid, err
}

// Processes is the process kitty started in the window and the window's
// foreground processes (kitty @ ls: the processes of the foreground
// process group of the window's terminal), ErrNoKittyWindow when the
// window is gone.
func (w KittyWindow) Processes(ctx context.Context) (pid int, foreground []int, err error) {
	out, err := w.rc(ctx, "", "ls")
	if err != nil {
		return 0, nil, err
	}
	var ls []struct {
		Tabs []struct {
			Windows []struct {
				ID         int `json:"id"`
				PID        int `json:"pid"`
				Foreground []struct {
					PID int `json:"pid"`
				} `json:"foreground_processes"`
			} `json:"windows"`
		} `json:"tabs"`
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		return 0, nil, fmt.Errorf("kitty @ ls: unexpected output: %w", err)
	}
	for _, o := range ls {
		for _, t := range o.Tabs {
			for _, x := range t.Windows {
				if strconv.Itoa(x.ID) == w.ID {
					for _, f := range x.Foreground {
						foreground = append(foreground, f.PID)
					}
					return x.PID, foreground, nil
				}
			}
		}
	}
	return 0, nil, fmt.Errorf("window %s of the kitty at %s: %w", w.ID, w.Addr, ErrNoKittyWindow)
}

// Text is the window's screen as text: get-text without --ansi, so no
// escape sequence of the window's comes with it.
func (w KittyWindow) Text(ctx context.Context) (string, error) {
	out, err := w.rc(ctx, "", "get-text", "--match", "id:"+w.ID)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(out, "\n "), nil
}

// Send types data into the window as it is: send-text reads it from
// its standard input (--stdin), where kitty applies none of the escape
// processing it applies to a text given as an argument.
func (w KittyWindow) Send(ctx context.Context, data string) error {
	if data == "" {
		return nil
	}
	_, err := w.rc(ctx, data, "send-text", "--match", "id:"+w.ID, "--stdin")
	return err
}

// Key presses one key in the window: with send-key where this kitty has
// it (it encodes the key as the window's program asked, kitty's keyboard
// protocol included), else by typing fallback, the bytes the caller knows
// the window's program reads for the key (kitty 0.26 has no send-key).
func (w KittyWindow) Key(ctx context.Context, name, fallback string) error {
	_, err := w.rc(ctx, "", "send-key", "--match", "id:"+w.ID, name)
	var pe *program.Error
	if err != nil && errors.As(err, &pe) && strings.Contains(pe.Stderr, "not a known command") {
		return w.Send(ctx, fallback)
	}
	return err
}
