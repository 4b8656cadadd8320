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

// WezTermPane is one pane of a WezTerm, reached by its CLI through the
// mux socket Socket (its WEZTERM_UNIX_SOCKET; "": the CLI finds the
// instance itself) by its id (WEZTERM_PANE): a pane of the person's that
// paneteam was told of, not one it opened, read and typed into for them
// (Claude's lead's, recorded at its start).
type WezTermPane struct {
	Bin    string // the wezterm program
	Socket string
	ID     string
}

// ErrNoWezTermPane: WezTerm answers, but has no pane of that id.
var ErrNoWezTermPane = errors.New("WezTerm has no such pane")

func (p WezTermPane) cli(ctx context.Context, stdin string, args ...string) (string, error) {
	if _, err := strconv.Atoi(p.ID); err != nil {
		return "", fmt.Errorf("WezTerm pane id %q is not a number", p.ID)
	}
	// --no-auto-start: a socket that does not answer is an error, not a
	// reason to start an empty wezterm-mux-server.
	cmd := program.Cmd{Path: p.Bin, Name: "wezterm", Args: append([]string{"cli", "--no-auto-start"}, args...),
		Env: cliEnviron(func(k string) string {
			if k == "WEZTERM_UNIX_SOCKET" {
				return p.Socket
			}
			return ""
		}, weztermAddress...), DefaultTimeout: weztermCallTimeout}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	return program.Output(ctx, cmd)
}

// TTY is the pane's terminal device (list's tty_name, /dev/pts/N),
// ErrNoWezTermPane when the pane is gone, "" when WezTerm does not say
// (a pane of a remote domain).
func (p WezTermPane) TTY(ctx context.Context) (string, error) {
	out, err := p.cli(ctx, "", "list", "--format", "json")
	if err != nil {
		return "", err
	}
	var ls []struct {
		PaneID  int     `json:"pane_id"`
		TTYName *string `json:"tty_name"`
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		return "", fmt.Errorf("wezterm cli list: unexpected output: %w", err)
	}
	for _, x := range ls {
		if strconv.Itoa(x.PaneID) == p.ID {
			if x.TTYName == nil {
				return "", nil
			}
			return *x.TTYName, nil
		}
	}
	return "", fmt.Errorf("pane %s of WezTerm: %w", p.ID, ErrNoWezTermPane)
}

// Text is the pane's screen as text: get-text without --escapes, so no
// escape sequence of the pane's comes with it.
func (p WezTermPane) Text(ctx context.Context) (string, error) {
	out, err := p.cli(ctx, "", "get-text", "--pane-id", p.ID)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(out, "\n "), nil
}

// Send types data into the pane as it is: send-text reads it from its
// standard input, and --no-paste sends it as typed bytes, not inside the
// bracketed-paste markers a program that asked for them would get.
func (p WezTermPane) Send(ctx context.Context, data string) error {
	if data == "" {
		return nil
	}
	_, err := p.cli(ctx, data, "send-text", "--pane-id", p.ID, "--no-paste")
	return err
}
