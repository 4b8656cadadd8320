package teamwatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/paneteam/paneteam/team"
)

// Defaults of a Watcher.
const (
	// DefaultPoll is the safety-net re-read while file-system events work;
	// it also notices what no file event announces: a pane that died, a
	// lock that has now been held too long.
	DefaultPoll = time.Second
	// FallbackPoll is the interval when events are unavailable.
	FallbackPoll = 250 * time.Millisecond
	// DefaultDebounce gathers a burst of file events (a write is a lock
	// mkdir, a temp file, a rename and a rmdir) into one re-read.
	DefaultDebounce = 50 * time.Millisecond
	// goneConfirm: config.json must be missing twice, this far apart,
	// before the team counts as deleted.
	goneConfirm = 100 * time.Millisecond
)

// WatchOptions tunes a Watcher. The zero value is the default.
type WatchOptions struct {
	Options
	Poll     time.Duration
	Debounce time.Duration
	// PollOnly never asks for file-system events.
	PollOnly bool
	// OnError receives problems the watch survives (a snapshot that could
	// not be taken this time, events unavailable). Nil ignores them.
	OnError func(error)
	// Spent are dollar thresholds: with Options.Cost, an event
	// (KindSpent) when a member's estimated cost passes one. Spending
	// shows at the poll, not by a file-system event.
	Spent []float64
}

// Watcher follows a team: each Next returns a fresh snapshot and the
// events since the previous one. It watches the team, inbox and task
// folders with fsnotify, and polls as a safety net.
type Watcher struct {
	t      team.Team
	opts   WatchOptions
	mail   *mailReader
	last   *Snapshot
	fs     *fsnotify.Watcher
	dirs   map[string]bool
	warned bool
	spent  Spending
}

// NewWatcher returns a watcher of t; call Close when done.
func NewWatcher(t team.Team, opts WatchOptions) *Watcher {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	return &Watcher{t: t, opts: opts, mail: newMailReader(), dirs: map[string]bool{}, spent: Spending{Thresholds: opts.Spent}}
}

// Close stops the file-system events.
func (w *Watcher) Close() { w.lose() }

// Last is the latest snapshot (nil before the first Next).
func (w *Watcher) Last() *Snapshot { return w.last }

// Next returns the next snapshot and what changed since the previous one.
// The first call returns the team as it is and no events: what happened
// before the watch started is not news. After that it blocks until
// something changed (or the poll interval passed and something did). A
// deleted team returns ErrTeamGone, ctx's end ctx.Err().
func (w *Watcher) Next(ctx context.Context) (*Snapshot, []Event, error) {
	for {
		w.watchDirs()
		if w.last != nil {
			if err := w.wait(ctx); err != nil {
				return nil, nil, err
			}
		}
		s, err := w.snapshot(ctx)
		if errors.Is(err, ErrTeamGone) {
			return nil, nil, err
		}
		if err != nil {
			w.report(err)
			if w.last == nil {
				// Nothing to compare with yet: try again after a pause.
				if err := sleep(ctx, w.interval()); err != nil {
					return nil, nil, err
				}
			}
			continue
		}
		prev := w.last
		w.last = s
		w.reportProblems(prev, s)
		spent := w.spent.Events(s)
		if prev == nil {
			return s, nil, nil
		}
		if ev := append(Diff(prev, s, w.opts.lockAge()), spent...); len(ev) > 0 {
			return s, ev, nil
		}
	}
}

// snapshot takes one, confirming a missing config.json once more before
// believing the team is gone.
func (w *Watcher) snapshot(ctx context.Context) (*Snapshot, error) {
	s, err := take(ctx, w.t, w.opts.Options, w.mail, w.last)
	if !errors.Is(err, ErrTeamGone) {
		return s, err
	}
	if err := sleep(ctx, goneConfirm); err != nil {
		return nil, err
	}
	return take(ctx, w.t, w.opts.Options, w.mail, w.last)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (w *Watcher) interval() time.Duration {
	if w.fs == nil && !w.opts.PollOnly {
		return min(w.opts.Poll, FallbackPoll)
	}
	return w.opts.Poll
}

// wait blocks until a file event (then a quiet Debounce, so one burst is
// one re-read) or the poll interval.
func (w *Watcher) wait(ctx context.Context) error {
	poll := time.NewTimer(w.interval())
	defer poll.Stop()
	var quiet <-chan time.Time
	for {
		var events <-chan fsnotify.Event
		var errs <-chan error
		if w.fs != nil {
			events, errs = w.fs.Events, w.fs.Errors
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-poll.C:
			return nil
		case <-quiet:
			return nil
		case ev, ok := <-events:
			if !ok {
				w.lose()
				return nil
			}
			if w.dirs[ev.Name] && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				w.lose() // a watched folder went: watch again next round
				return nil
			}
			if quiet == nil {
				t := time.NewTimer(w.opts.Debounce)
				defer t.Stop()
				quiet = t.C
			}
		case err, ok := <-errs:
			if !ok {
				w.lose()
			} else if !errors.Is(err, fsnotify.ErrEventOverflow) {
				w.report(fmt.Errorf("watching team %s: %w", w.t.Name, err))
			}
			return nil // events may have been lost: read again
		}
	}
}

// watchDirs adds the team's folders that exist and are not watched yet;
// missing ones (the task folder appears with the first task) are polled
// for, never created here.
func (w *Watcher) watchDirs() {
	if w.opts.PollOnly {
		return
	}
	if w.fs == nil {
		fw, err := fsnotify.NewWatcher()
		if err != nil {
			w.warn(err)
			return
		}
		w.fs, w.dirs = fw, map[string]bool{}
	}
	for _, d := range uniqueDirs(w.t.Dir(), w.t.InboxDir(), w.t.TasksDir()) {
		if w.dirs[d] {
			continue
		}
		if _, err := os.Stat(d); err != nil {
			continue
		}
		if err := w.fs.Add(d); err != nil {
			w.warn(err)
			continue
		}
		w.dirs[d] = true
	}
}

func (w *Watcher) warn(err error) {
	if !w.warned {
		w.warned = true
		w.report(fmt.Errorf("file-system events unavailable for team %s (%w); checking every %s instead", w.t.Name, err, FallbackPoll))
	}
}

func (w *Watcher) lose() {
	if w.fs != nil {
		w.fs.Close()
		w.fs = nil
	}
	w.dirs = map[string]bool{}
}

func (w *Watcher) report(err error) {
	if w.opts.OnError != nil {
		w.opts.OnError(err)
	}
}

// reportProblems passes on what a snapshot could not read, when it is new
// since the previous snapshot, so a watch says it once, not every second.
func (w *Watcher) reportProblems(prev, cur *Snapshot) {
	old := map[string]bool{}
	if prev != nil {
		for _, p := range prev.Problems {
			old[p] = true
		}
	}
	for _, p := range cur.Problems {
		if !old[p] {
			w.report(errors.New(p))
		}
	}
}
