package mailbox

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/paneteam/paneteam/internal/sys/filesig"

	"github.com/fsnotify/fsnotify"
)

// Polling intervals of Watch. File-system events drive it; polling is the
// safety net for events that never come (an inotify queue overflow, a
// network file system) and the whole mechanism when events are unavailable.
const (
	DefaultPoll  = time.Second
	FallbackPoll = 100 * time.Millisecond
)

// ErrStop, returned by Watch's deliver function, ends the watch; Watch
// then returns nil.
var ErrStop = errors.New("stop watching")

// WatchOptions tunes Watch. The zero value is the default.
type WatchOptions struct {
	// Poll is the safety-net interval while events work (DefaultPoll when
	// zero). Without events Watch polls every FallbackPoll or Poll,
	// whichever is shorter.
	Poll time.Duration
	// PollOnly polls every Poll and never asks for file-system events
	// (for file systems that do not deliver them, such as some network
	// mounts).
	PollOnly bool
	// OnError receives problems the watch survives: an inbox that does not
	// parse for now, events unavailable. Nil ignores them.
	OnError func(error)
}

// Watch calls deliver with each batch of new messages, in inbox order,
// until ctx ends (it returns ctx.Err()) or deliver returns an error
// (ErrStop: Watch returns nil). The first batch holds the messages unread
// when the watch starts; later batches hold every message that appears
// after, read or not (Claude Code may mark a message read within a second).
//
// An inbox has no message ids and paneteam prunes read messages, so a
// message is identified by its sender, timestamp, text and summary, and
// each is delivered once however the file changes: replaced by rename
// (paneteam), rewritten in place (Claude Code: truncate, then write, so a
// reader can see it empty or half written), created late, or moved aside.
// Watch follows the inbox's directory, not the file, because each of
// those replaces or removes the file a file watch would follow.
func (in *Inbox) Watch(ctx context.Context, opts WatchOptions, deliver func([]Message) error) error {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	w := &watcher{in: in, opts: opts, seen: map[msgID]int{}}
	defer w.stopEvents()
	first, force := true, true
	for {
		// Subscribe before reading, so nothing lands unnoticed in between.
		w.startEvents()
		batch, err := w.scan(first, force)
		switch {
		case err != nil:
			w.report(err)
		case batch != nil || first:
			first = false
			if len(batch) > 0 {
				if err := deliver(batch); err != nil {
					if errors.Is(err, ErrStop) {
						return nil
					}
					return err
				}
			}
		}
		if force, err = w.wait(ctx); err != nil {
			return err
		}
	}
}

// msgID identifies a message: a digest keeps the seen set small however
// long the texts are.
type msgID [sha256.Size]byte

func idOf(m Message) msgID {
	h := sha256.New()
	for _, s := range []string{m.From, m.Timestamp, m.Text, m.Summary} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	var id msgID
	h.Sum(id[:0])
	return id
}

type watcher struct {
	in   *Inbox
	opts WatchOptions
	// seen counts, per message, the most copies of it ever seen at once:
	// two identical sends are two messages.
	seen    map[msgID]int
	lastSig filesig.Sig
	fs      *fsnotify.Watcher
	warned  bool
	// skipped holds the entries already reported as unreadable, so each
	// is reported once however often the inbox changes.
	skipped map[msgID]bool
}

// reportSkipped reports each entry the watch cannot read, once.
func (w *watcher) reportSkipped(skipped []*SkippedEntry) {
	for _, s := range skipped {
		id := msgID(sha256.Sum256(s.Raw))
		if w.skipped[id] {
			continue
		}
		if w.skipped == nil {
			w.skipped = map[msgID]bool{}
		}
		w.skipped[id] = true
		w.report(s)
	}
}

// scan reads the inbox and returns the messages not seen before (nil when
// nothing changed). Unless force, an unchanged file is not read again.
func (w *watcher) scan(first, force bool) ([]Message, error) {
	sig := filesig.Stat(w.in.Path)
	if !force && !first && sig == w.lastSig {
		return nil, nil
	}
	msgs, skipped, err := w.in.Entries()
	if err != nil {
		return nil, err
	}
	w.lastSig = sig
	w.reportSkipped(skipped)
	counts := make(map[msgID]int, len(msgs))
	out := []Message{}
	for _, m := range msgs {
		id := idOf(m)
		counts[id]++
		if counts[id] > w.seen[id] && (!first || !m.Read) {
			out = append(out, m)
		}
	}
	for id, n := range counts {
		if n > w.seen[id] {
			w.seen[id] = n
		}
	}
	return out, nil
}

// wait blocks until the inbox may have changed: an event naming it (force
// = true), or the poll interval.
func (w *watcher) wait(ctx context.Context) (force bool, err error) {
	t := time.NewTimer(w.interval())
	defer t.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fs != nil {
		events, errs = w.fs.Events, w.fs.Errors
	}
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-t.C:
			return false, nil
		case ev, ok := <-events:
			if !ok {
				w.lose(errors.New("event stream closed"))
				return true, nil
			}
			if w.relevant(ev) {
				w.drain()
				return true, nil
			}
		case err, ok := <-errs:
			if !ok {
				w.lose(errors.New("event stream closed"))
			} else if !errors.Is(err, fsnotify.ErrEventOverflow) {
				w.report(fmt.Errorf("watching %s: %w", w.in.Path, err))
			}
			// Events may have been dropped: read again to be sure.
			return true, nil
		}
	}
}

func (w *watcher) interval() time.Duration {
	if w.fs == nil && !w.opts.PollOnly {
		return min(w.opts.Poll, FallbackPoll)
	}
	return w.opts.Poll
}

// relevant reports whether ev concerns the inbox. The directory going away
// (team deleted) ends the directory watch; polling carries on.
func (w *watcher) relevant(ev fsnotify.Event) bool {
	dir := filepath.Dir(w.in.Path)
	if filepath.Clean(ev.Name) == filepath.Clean(dir) && ev.Has(fsnotify.Remove|fsnotify.Rename) {
		w.lose(fmt.Errorf("folder %s was removed", dir))
		return true
	}
	return filepath.Base(ev.Name) == filepath.Base(w.in.Path)
}

// drain discards events already queued: one read covers them all.
func (w *watcher) drain() {
	for w.fs != nil {
		select {
		case _, ok := <-w.fs.Events:
			if !ok {
				return
			}
		default:
			return
		}
	}
}

// startEvents watches the inbox's folder if it is not watched yet. A
// missing folder is polled for, never created here: creating it while a
// team is being deleted would resurrect part of the team and make the
// delete fail.
func (w *watcher) startEvents() {
	if w.fs != nil || w.opts.PollOnly {
		return
	}
	dir := filepath.Dir(w.in.Path)
	if _, err := os.Stat(dir); err != nil {
		return
	}
	fw, err := fsnotify.NewWatcher()
	if err == nil {
		if err = fw.Add(dir); err != nil {
			fw.Close()
		}
	}
	if err != nil {
		if !w.warned {
			w.warned = true
			w.report(fmt.Errorf("file-system events unavailable for %s (%w); checking every %s instead", dir, err, w.interval()))
		}
		return
	}
	w.fs = fw
}

// lose ends the directory watch; polling carries on and the next round
// tries to watch again.
func (w *watcher) lose(err error) {
	if w.fs != nil {
		w.fs.Close()
		w.fs = nil
	}
	if err != nil {
		w.report(fmt.Errorf("watching %s: %w; polling meanwhile", w.in.Path, err))
	}
}

func (w *watcher) stopEvents() { w.lose(nil) }

func (w *watcher) report(err error) {
	if w.opts.OnError != nil {
		w.opts.OnError(err)
	}
}
