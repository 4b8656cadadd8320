package teamwatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/paneteam/paneteam/team"
)

// Defaults of a Watcher.
const (
	// DefaultPoll is the safety-net re-read while file-system events work;
	// it also notices what no file event announces: a pane that died, a
	// lock that has now been held too long (WatchOptions.QuietPoll waits
	// on those instead, where it can).
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
	// shows at the poll, or with QuietPoll by its records' folders' file
	// events.
	Spent []float64
	// QuietPoll, above Poll, lets the safety-net poll back off while the
	// team is quiet: each re-read that finds nothing new doubles the wait,
	// up to QuietPoll, and any event brings it back to Poll. It backs off
	// only while everything a re-read notices is also announced by an
	// event it waits on (quiet.go): file events in the team's folders and
	// paneteam's state folder, each live member's process ending (a
	// pidfd), a timer for what time alone makes true (a lock held too
	// long). Zero: every Poll, however quiet.
	QuietPoll time.Duration
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
	// cur is the wait before the next safety-net re-read (QuietPoll);
	// cover what the last snapshot says to wait on; woke that the last
	// wait ended on an event, not the poll; reads counts snapshots taken.
	cur   time.Duration
	cover quietCover
	// allDirs: every folder a re-read reads records in is watched.
	allDirs bool
	woke    bool
	exits   exits
	reads   atomic.Int64
}

// NewWatcher returns a watcher of t; call Close when done.
func NewWatcher(t team.Team, opts WatchOptions) *Watcher {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	return &Watcher{t: t, opts: opts, mail: newMailReader(), dirs: map[string]bool{}, spent: Spending{Thresholds: opts.Spent}, cur: opts.Poll}
}

// Close stops the file-system events and the waits on processes.
func (w *Watcher) Close() {
	w.lose()
	w.exits.close()
}

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
			w.cover, w.cur = quietCover{}, w.opts.Poll
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
			w.settle(s, false)
			return s, nil, nil
		}
		ev := append(Diff(prev, s, w.opts.lockAge()), spent...)
		w.settle(s, len(ev) > 0)
		if len(ev) > 0 {
			return s, ev, nil
		}
	}
}

// settle decides the next wait from snapshot s: back to Poll after an
// event, doubled (up to QuietPoll) after a poll that found nothing, and
// Poll whenever s's team holds something no event would announce.
func (w *Watcher) settle(s *Snapshot, changed bool) {
	if w.opts.QuietPoll <= w.opts.Poll {
		return
	}
	w.cover = coverOf(s, w.opts.Options)
	if !w.exits.watch(w.cover.pids) {
		w.cover.ok = false
	}
	// A folder watched only now was read before its events were asked
	// for: the next poll comes at Poll, to read what that missed.
	added := w.watchMore(w.cover.dirs)
	switch {
	case !w.cover.ok || changed || w.woke || added:
		w.cur = w.opts.Poll
	default:
		w.cur = min(2*w.cur, w.opts.QuietPoll)
	}
}

// snapshot takes one, confirming a missing config.json once more before
// believing the team is gone.
func (w *Watcher) snapshot(ctx context.Context) (*Snapshot, error) {
	w.reads.Add(1)
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
	if w.fs != nil && w.cover.ok && w.allDirs && len(w.dirs) > 0 {
		return w.cur
	}
	return w.opts.Poll
}

// wait blocks until a file event (then a quiet Debounce, so one burst is
// one re-read) or the poll interval.
func (w *Watcher) wait(ctx context.Context) error {
	w.woke = true // unless the poll ends it
	poll := time.NewTimer(w.interval())
	defer poll.Stop()
	var due <-chan time.Time
	if !w.cover.until.IsZero() {
		t := time.NewTimer(time.Until(w.cover.until))
		defer t.Stop()
		due = t.C
	}
	ended, stop, err := w.exits.wait()
	defer stop()
	if err != nil {
		w.report(err)
		w.cover.ok = false
		poll.Reset(w.interval())
	}
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
			w.woke = false
			return nil
		case <-due:
			return nil
		case <-ended:
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
	dirs := uniqueDirs(w.t.Dir(), w.t.InboxDir(), w.t.TasksDir())
	quiet := w.opts.QuietPoll > w.opts.Poll
	if quiet {
		more, all := recordDirs(w.t, w.opts.getenv)
		dirs, w.allDirs = uniqueDirs(append(dirs, more...)...), all
		if _, err := os.Stat(w.t.TasksDir()); err != nil {
			// The task folder appears with the first task: its parent
			// tells of that, where it is there.
			if _, err := os.Stat(filepath.Dir(w.t.TasksDir())); err == nil {
				dirs = append(dirs, filepath.Dir(w.t.TasksDir()))
			} else {
				w.allDirs = false
			}
		}
	}
	for _, d := range dirs {
		if w.dirs[d] {
			continue
		}
		if _, err := os.Stat(d); err != nil {
			continue // the inbox folder appears in the team's, watched
		}
		if err := w.fs.Add(d); err != nil {
			w.allDirs = false
			w.warn(err)
			continue
		}
		w.dirs[d] = true
	}
}

// watchMore adds the folders of dirs not watched yet, and says whether
// there were any. A folder that cannot be watched, or more than a
// watcher watches, keeps the poll at Poll.
func (w *Watcher) watchMore(dirs []string) bool {
	if w.fs == nil {
		return len(dirs) > 0
	}
	added := false
	for _, d := range dirs {
		if w.dirs[d] {
			continue
		}
		if len(w.dirs) >= 2*maxRecordDirs {
			w.cover.ok = false
			return added
		}
		if err := w.fs.Add(d); err != nil {
			w.cover.ok = false
			continue
		}
		w.dirs[d], added = true, true
	}
	return added
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
