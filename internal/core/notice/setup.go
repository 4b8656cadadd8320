package notice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/term/osc"
	"github.com/paneteam/paneteam/tmux"
)

// The ways a notice can go (monitor --notify).
const (
	WayTmux     = "tmux"
	WayTerminal = "terminal"
)

// Ways lists them.
var Ways = []string{WayTmux, WayTerminal}

// Setup is what a person asked for, and where the command runs.
type Setup struct {
	// Ways are WayTmux and WayTerminal, as asked.
	Ways []string
	// Exec is a command to run per notice (none when empty).
	Exec []string
	// Term forces a terminal's sequence (osc.None: detect it).
	Term osc.Terminal
	// TMUX is $TMUX: the server the command runs under ("" outside tmux).
	TMUX   string
	Getenv func(string) string
	// TTY is the terminal the command writes to outside tmux (nil when
	// its output is not a terminal).
	TTY io.Writer
	// ExecOutput receives what the Exec command prints.
	ExecOutput io.Writer
}

// On reports whether any notice was asked for: notices are opt-in.
func (s Setup) On() bool { return len(s.Ways) > 0 || len(s.Exec) > 0 }

// ParseWays reads a comma-separated list of ways.
func ParseWays(list string) ([]string, error) {
	var ways []string
	for _, w := range strings.Split(list, ",") {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		if !slices.Contains(Ways, w) {
			return nil, fmt.Errorf("%q is not a way to notify: use %s", w, strings.Join(Ways, ", "))
		}
		if !slices.Contains(ways, w) {
			ways = append(ways, w)
		}
	}
	return ways, nil
}

// Senders builds the senders the setup asks for.
func (s Setup) Senders() ([]Sender, error) {
	var out []Sender
	var srv *tmux.Server
	if s.TMUX != "" {
		v, err := tmux.FromTMUX(s.TMUX)
		if err != nil {
			return nil, err
		}
		srv = &v
	}
	// The terminal's notification goes before tmux's message: while tmux
	// 3.3 shows a message it drops what a pane passes through.
	for _, w := range []string{WayTerminal, WayTmux} {
		if !slices.Contains(s.Ways, w) {
			continue
		}
		switch w {
		case WayTmux:
			if srv == nil {
				return nil, errors.New("tmux notices need tmux: run this inside tmux (TMUX is not set)")
			}
			out = append(out, Tmux{Server: *srv})
		case WayTerminal:
			if srv == nil && s.TTY == nil {
				return nil, errors.New("terminal notices need a terminal: run this in one, with its output not redirected, or inside tmux")
			}
			out = append(out, Terminal{Term: s.Term, Server: srv, W: s.TTY, Getenv: s.Getenv})
		}
	}
	if len(s.Exec) > 0 {
		out = append(out, Exec{Argv: s.Exec, Output: s.ExecOutput})
	}
	return out, nil
}

// Warning says, once at the start, why an asked-for notice cannot reach
// the person: the terminal's own notification under a tmux whose
// allow-passthrough is off. "" when nothing stands in the way.
func (s Setup) Warning(ctx context.Context) string {
	if s.TMUX == "" || !slices.Contains(s.Ways, WayTerminal) {
		return ""
	}
	srv, err := tmux.FromTMUX(s.TMUX)
	if err != nil {
		return ""
	}
	if off, err := PassthroughOff(ctx, srv); err == nil && off {
		return ErrPassthroughOff.Error()
	}
	return ""
}

// serverCheck is how often a notifier under tmux checks that its server
// still runs.
const serverCheck = 5 * time.Second

// Bound returns ctx, ended also when the tmux server the notices go to
// stops: a monitor the TPM plugin started in the background must not
// outlive it (tmux leaves run-shell -b's jobs running when it exits).
func (s Setup) Bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if s.TMUX == "" || len(s.Ways) == 0 {
		return ctx, cancel
	}
	srv, err := tmux.FromTMUX(s.TMUX)
	if err != nil {
		return ctx, cancel
	}
	go func() {
		t := time.NewTicker(serverCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := srv.Run(ctx, "display-message", "-p", "x"); errors.Is(err, tmux.ErrNoServer) {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, cancel
}
