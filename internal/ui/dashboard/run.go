package dashboard

import (
	"context"
	"errors"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
)

// RunOptions are what Run needs besides the model's options.
type RunOptions struct {
	Options
	// Watch follows the team; each snapshot it returns refreshes the
	// screen (file-system events with a poll as safety net, no busy loop).
	Watch *teamwatch.Watcher
	In    io.Reader
	Out   io.Writer
}

// Run shows the dashboard until the person quits (q, Ctrl-C), the
// process is told to stop (SIGTERM, ctx), or the team is deleted. The
// terminal is restored (alternate screen off, cursor shown) on each of
// these. It returns the line to print once the terminal is back, if any.
func Run(ctx context.Context, acts Actions, ro RunOptions) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := New(ctx, acts, ro.Options)
	// Signals end ctx (the command's SIGINT/SIGTERM handling). Bubble
	// Tea's own handler would race it: with both, a SIGTERM can leave its
	// handler blocked sending a quit to a loop that already ended, and the
	// program waiting for that handler forever.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if ro.In != nil {
		opts = append(opts, tea.WithInput(ro.In))
	}
	if ro.Out != nil {
		opts = append(opts, tea.WithOutput(ro.Out))
	}
	p := tea.NewProgram(m, opts...)
	done := make(chan struct{})
	if ro.Watch != nil {
		go func() {
			defer close(done)
			follow(ctx, p, acts, ro.Watch)
		}()
	} else {
		close(done)
	}
	_, err := p.Run()
	cancel()
	<-done
	switch {
	case errors.Is(err, tea.ErrProgramKilled):
		// Interrupted or told to stop: the terminal is restored; a normal end.
		return m.Final, nil
	case err != nil:
		return "", err
	}
	return m.Final, nil
}

// follow sends each snapshot the watcher takes, with the requests
// waiting at that moment, until ctx ends or the team is deleted.
func follow(ctx context.Context, p *tea.Program, acts Actions, w *teamwatch.Watcher) {
	for {
		s, _, err := w.Next(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			p.Send(dataMsg{err: err})
			if errors.Is(err, teamwatch.ErrTeamGone) {
				return
			}
			continue
		}
		reqs, rerr := acts.Requests(ctx)
		if errors.Is(rerr, teamwatch.ErrTeamGone) {
			p.Send(dataMsg{err: rerr})
			return
		}
		p.Send(dataMsg{snap: s, reqs: reqs, err: rerr})
	}
}
