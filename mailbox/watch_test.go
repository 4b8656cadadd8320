package mailbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

// watchLog runs Watch in the background and records what it delivers.
type watchLog struct {
	mu     sync.Mutex
	got    []mailbox.Message
	errs   []error
	cancel context.CancelFunc
	done   chan error
}

func startWatch(t *testing.T, in *mailbox.Inbox, opts mailbox.WatchOptions) *watchLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watchLog{cancel: cancel, done: make(chan error, 1)}
	opts.OnError = func(err error) { w.mu.Lock(); w.errs = append(w.errs, err); w.mu.Unlock() }
	go func() {
		w.done <- in.Watch(ctx, opts, func(ms []mailbox.Message) error {
			w.mu.Lock()
			w.got = append(w.got, ms...)
			w.mu.Unlock()
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-w.done; !errors.Is(err, context.Canceled) {
			t.Errorf("Watch ended with %v, want context.Canceled", err)
		}
	})
	return w
}

func (w *watchLog) texts() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return texts(w.got)
}

// expect waits until the watch delivered exactly want (comma-separated
// texts), then checks a later write does not bring any of it again.
func (w *watchLog) expect(t *testing.T, want string) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, "delivery of "+want, func() bool { return len(w.texts()) >= len(want) })
	if got := w.texts(); got != want {
		t.Fatalf("watch delivered %q, want %q", got, want)
	}
}

// writeInPlace rewrites the inbox the way Claude Code does: truncate, then
// write, in two steps a reader can fall between.
func writeInPlace(t *testing.T, path string, ms []mailbox.Message) {
	t.Helper()
	b, err := mailbox.Encode(ms)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	half := len(b) / 2
	if _, err := f.Write(b[:half]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond) // widen the torn window on purpose
	if _, err := f.Write(b[half:]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func watchModes(t *testing.T, run func(t *testing.T, opts mailbox.WatchOptions)) {
	t.Run("events", func(t *testing.T) { run(t, mailbox.WatchOptions{}) })
	t.Run("polling", func(t *testing.T) {
		run(t, mailbox.WatchOptions{PollOnly: true, Poll: 20 * time.Millisecond})
	})
}

func TestWatchDeliversUnreadAtStartThenEachNewMessageOnce(t *testing.T) {
	watchModes(t, func(t *testing.T, opts mailbox.WatchOptions) {
		in := archiveInbox(t)
		ctx := context.Background()
		old := msg("bob", "old")
		old.Read = true
		b, _ := mailbox.Encode([]mailbox.Message{old, msg("bob", "waiting")})
		os.WriteFile(in.Path, b, 0o600)

		w := startWatch(t, in, opts)
		w.expect(t, "waiting")
		for _, text := range []string{"a", "b", "c"} {
			if err := in.Append(ctx, msg("carol", text)); err != nil {
				t.Fatal(err)
			}
		}
		w.expect(t, "waiting,a,b,c")
		// Marking read and pruning rewrite the file; nothing is new.
		all, _ := in.ReadAll()
		if _, err := in.MarkRead(ctx, all); err != nil {
			t.Fatal(err)
		}
		if err := in.Append(ctx, msg("carol", "d")); err != nil {
			t.Fatal(err)
		}
		w.expect(t, "waiting,a,b,c,d")
	})
}

func TestWatchFollowsLateCreationAndInPlaceRewrites(t *testing.T) {
	watchModes(t, func(t *testing.T, opts mailbox.WatchOptions) {
		in := archiveInbox(t) // folder exists, inbox does not
		w := startWatch(t, in, opts)
		var ms []mailbox.Message
		for _, text := range []string{"one", "two", "three"} {
			ms = append(ms, msg("claude", text))
			writeInPlace(t, in.Path, ms)
		}
		w.expect(t, "one,two,three")
		// Claude Code's reader marks everything read, in place.
		for i := range ms {
			ms[i].Read = true
		}
		writeInPlace(t, in.Path, ms)
		ms = append(ms, msg("claude", "four"))
		writeInPlace(t, in.Path, ms)
		w.expect(t, "one,two,three,four")
	})
}

func TestWatchSurvivesInboxMovedAside(t *testing.T) {
	watchModes(t, func(t *testing.T, opts mailbox.WatchOptions) {
		in := archiveInbox(t)
		ctx := context.Background()
		w := startWatch(t, in, opts)
		if err := in.Append(ctx, msg("bob", "before")); err != nil {
			t.Fatal(err)
		}
		w.expect(t, "before")
		if err := os.Rename(in.Path, in.Path+".corrupt-x"); err != nil {
			t.Fatal(err)
		}
		if err := in.Append(ctx, msg("bob", "after")); err != nil {
			t.Fatal(err)
		}
		w.expect(t, "before,after")
		// Moving the old file back brings nothing twice.
		if err := os.Rename(in.Path+".corrupt-x", in.Path); err != nil {
			t.Fatal(err)
		}
		if err := in.Append(ctx, msg("bob", "last")); err != nil {
			t.Fatal(err)
		}
		w.expect(t, "before,after,last")
	})
}

func TestWatchStopsWhenDeliverSaysSo(t *testing.T) {
	in := archiveInbox(t)
	if err := in.Append(context.Background(), msg("bob", "x")); err != nil {
		t.Fatal(err)
	}
	calls := 0
	err := in.Watch(context.Background(), mailbox.WatchOptions{}, func(ms []mailbox.Message) error {
		calls++
		if !strings.Contains(texts(ms), "x") {
			t.Errorf("first batch %q, want x", texts(ms))
		}
		return mailbox.ErrStop
	})
	if err != nil || calls != 1 {
		t.Fatalf("Watch = %v after %d calls, want nil after 1", err, calls)
	}
}

// A team Claude Code made has no inbox folder until its first write, and a
// team being deleted loses it: the watch waits for the folder, and never
// creates it (that would leave part of a deleted team behind).
func TestWatchWaitsForAMissingFolderWithoutCreatingIt(t *testing.T) {
	watchModes(t, func(t *testing.T, opts mailbox.WatchOptions) {
		dir := filepath.Join(t.TempDir(), "inboxes")
		in := mailbox.New(filepath.Join(dir, "alice.json"), lockfile.Options{})
		w := startWatch(t, in, opts)
		time.Sleep(300 * time.Millisecond)
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("the watch created the inbox folder (%v)", err)
		}
		if err := in.Send(context.Background(), msg("bob", "late")); err != nil {
			t.Fatal(err)
		}
		w.expect(t, "late")
		if err := in.Send(context.Background(), msg("bob", "later")); err != nil {
			t.Fatal(err)
		}
		w.expect(t, "late,later")
	})
}
