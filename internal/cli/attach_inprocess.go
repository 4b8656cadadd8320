package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/paneteam/paneteam/internal/panes/ptyhost"
	"github.com/paneteam/paneteam/internal/term/tty"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

// detachKey ends an in-process attachment and leaves the teammate running:
// Ctrl-], as in telnet, because programs rarely bind it (Ctrl-\ is SIGQUIT
// in shells, Ctrl-D and Ctrl-C mean something to every REPL).
const (
	detachKey  = 0x1d
	detachName = "Ctrl-]"
)

// attachInProcess connects the terminal to an in-process teammate: typing
// goes in, output comes out (the most recent output first), the terminal's
// size follows the window's, and Ctrl-] detaches. The terminal is put
// back as it was on every way out (tty.Take's deferred release).
func attachInProcess(ctx context.Context, env Env, t team.Team, m *team.Member) error {
	paths, st, err := hostOf(t, m)
	if err != nil {
		return err
	}
	if !st.HostAlive() {
		return fmt.Errorf("%s is not running (its in-process host has ended); see its last output with: paneteam logs --team %s --name %s", m.Name, t.Name, m.Name)
	}
	o := ptyhost.AttachOptions{In: env.Stdin, Out: env.Stdout, DetachKey: detachKey}
	if in, ok := env.Stdin.(*os.File); ok && env.StdinTTY {
		fd := int(in.Fd())
		size, _ := tty.SizeOf(fd)
		o.Size = ptyhost.Size(size)
		resize := make(chan ptyhost.Size, 1)
		release, err := tty.Take(fd, size, func(s tty.Size) { latest(resize, ptyhost.Size(s)) })
		if err != nil {
			return fmt.Errorf("attach %s: %w", m.Name, err)
		}
		defer release()
		o.Resize = resize
	}
	fmt.Fprintf(env.Stderr, "paneteam: attached to %s (in-process); detach with %s\r\n", visible.Line(m.Name), detachName)
	err = ptyhost.Attach(ctx, paths.Socket, o)
	switch {
	case errors.Is(err, ptyhost.ErrDetached):
		fmt.Fprintf(env.Stderr, "\r\npaneteam: detached from %s; it keeps running\r\n", visible.Line(m.Name))
		return nil
	case err == nil:
		fmt.Fprintf(env.Stderr, "\r\npaneteam: %s has ended\r\n", visible.Line(m.Name))
		return nil
	}
	return fmt.Errorf("attach %s: %w", m.Name, err)
}

// latest leaves s as the one size waiting in ch, replacing one not yet
// sent: after a burst of resizes the host gets the last, not the first.
func latest(ch chan ptyhost.Size, s ptyhost.Size) {
	for {
		select {
		case ch <- s:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}

// hostOf finds an in-process member's files and its host's record.
func hostOf(t team.Team, m *team.Member) (ptyhost.Paths, ptyhost.State, error) {
	paths := ptyhost.PathsFor(t.Dir(), m.Name)
	if m.Paneteam != nil && m.Paneteam.HostState != "" {
		paths.State = m.Paneteam.HostState
	}
	st, err := ptyhost.ReadState(paths.State)
	if err != nil {
		return paths, st, fmt.Errorf("%s has no in-process host record (%w): was it started with 'spawn-pane --backend in-process'?", m.Name, err)
	}
	if st.Socket != "" {
		paths.Socket = st.Socket
	}
	return paths, st, nil
}
