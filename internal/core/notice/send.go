package notice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/internal/term/osc"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/tmux"
)

// Tmux shows a notice in the message line of every client of a tmux
// server, and rings the bell in the window of each teammate it is about.
type Tmux struct {
	Server tmux.Server
	// Display is how long the message stays (tmux's display-time when
	// zero).
	Display time.Duration
}

// Send shows n and rings its teammates' bells.
func (t Tmux) Send(ctx context.Context, n Notice) error {
	clients, err := t.Server.Run(ctx, "list-clients", "-F", "#{client_name}")
	if err != nil {
		return fmt.Errorf("tmux clients: %w", err)
	}
	// display-message expands formats in its message (tmux 3.3 has no -l
	// to show it as it is): every '#' doubled shows one. The text is
	// visible already, so it holds no control.
	msg := tmux.FormatEscape(visible.Line(n.Title() + ": " + n.Text))
	var errs []error
	for _, c := range strings.Fields(clients) {
		args := []string{"display-message", "-c", c}
		if t.Display > 0 {
			args = append(args, "-d", fmt.Sprint(t.Display.Milliseconds()))
		}
		if _, err := t.Server.Run(ctx, append(args, "--", msg)...); err != nil {
			errs = append(errs, fmt.Errorf("tmux message to %s: %w", c, err))
		}
	}
	for _, one := range n.All() {
		if one.Pane != "" {
			if err := t.bell(ctx, one.Pane); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// bell writes BEL to the pane's terminal, as if its program rang: tmux
// flags the window (#{window_bell_flag}, the status line's '!') and acts
// as the person's bell-action says.
func (t Tmux) bell(ctx context.Context, pane string) error {
	tty, err := t.Server.Run(ctx, "display-message", "-p", "-t", pane, "#{pane_tty}")
	if err != nil {
		return fmt.Errorf("bell in pane %s: %w", pane, err)
	}
	return writeTTY(tty, []byte("\a"))
}

// writeTTY writes to a terminal device without making it ours
// (O_NOCTTY) and without waiting on one nobody reads (O_NONBLOCK).
func writeTTY(path string, b []byte) error {
	if !strings.HasPrefix(path, "/dev/") {
		return fmt.Errorf("%q is not a terminal device", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("open terminal: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Terminal asks the person's terminal for a desktop notification. Outside
// tmux it writes the sequence to W, the terminal the command runs in.
// Under tmux (Server set) it writes it, wrapped for passthrough, to the
// pane each client is looking at, which tmux hands to that client's
// terminal when allow-passthrough is on; the sequence is chosen per
// client from what tmux knows of its terminal.
type Terminal struct {
	// Term is the sequence; osc.None detects it (from Getenv outside
	// tmux, from the client under tmux).
	Term   osc.Terminal
	Server *tmux.Server
	W      io.Writer
	Getenv func(string) string
}

// ErrPassthroughOff: tmux drops the notification, as its pane's
// allow-passthrough option is off.
var ErrPassthroughOff = errors.New("tmux's allow-passthrough is off, so the terminal's own notification cannot pass (set -g allow-passthrough on)")

// Send writes the notification.
func (t Terminal) Send(ctx context.Context, n Notice) error {
	if t.Server == nil {
		term := t.Term
		if term == osc.None && t.Getenv != nil {
			term = osc.Detect(t.Getenv("TERM_PROGRAM"), t.Getenv("TERM"), "")
		}
		if seq := osc.Notification(term, n.Title(), n.Text); seq != nil {
			_, err := t.W.Write(seq)
			return err
		}
		return nil
	}
	out, err := t.Server.Run(ctx, "list-clients", "-F",
		tmux.Format("client_termname", "client_termtype", "pane_tty", "allow-passthrough"))
	if err != nil {
		return fmt.Errorf("tmux clients: %w", err)
	}
	recs, err := tmux.ParseLines(out, 4)
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range recs {
		term := t.Term
		if term == osc.None {
			term = osc.Detect("", r[0], r[1])
		}
		seq := osc.Passthrough(osc.Notification(term, n.Title(), n.Text))
		if seq == nil {
			continue
		}
		if !On(r[3]) {
			errs = append(errs, ErrPassthroughOff)
			continue
		}
		if err := writeTTY(r[2], seq); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// On reads a tmux flag option as show-options or a format prints it.
func On(v string) bool {
	v = strings.TrimSpace(v)
	return v == "on" || v == "1" || v == "all"
}

// PassthroughOff reports whether the server's global allow-passthrough is
// off: the terminal's own notifications cannot pass.
func PassthroughOff(ctx context.Context, srv tmux.Server) (bool, error) {
	v, err := srv.Run(ctx, "show-options", "-gv", "allow-passthrough")
	if err != nil {
		return false, fmt.Errorf("tmux allow-passthrough: %w", err)
	}
	return !On(v), nil
}

// Exec runs a command of the person's per notice, the notice as JSON on
// its standard input. Argv is run as it is, never through a shell.
type Exec struct {
	Argv []string
	// Output receives what the command prints (discarded when nil).
	Output io.Writer
	// Timeout bounds one run (DefaultExecTimeout when zero).
	Timeout time.Duration
}

// DefaultExecTimeout: a notice command that hangs must not hold the next.
const DefaultExecTimeout = 30 * time.Second

// Send runs the command with n on its standard input.
func (e Exec) Send(ctx context.Context, n Notice) error {
	if len(e.Argv) == 0 {
		return errors.New("no command to run")
	}
	body, err := json.Marshal(n)
	if err != nil {
		return err
	}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	out := e.Output
	if out == nil {
		out = io.Discard
	}
	stdout, err := program.Output(ctx, program.Cmd{Path: e.Argv[0], Args: e.Argv[1:], Timeout: timeout,
		Stdin: bytes.NewReader(append(body, '\n')), Stderr: out})
	io.WriteString(out, stdout)
	if pe := (*program.Error)(nil); errors.As(err, &pe) {
		err = pe.Err
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", visible.Line(e.Argv[0]), err)
	}
	return nil
}
