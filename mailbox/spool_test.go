package mailbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

// Many senders at once share writes; every message sent is in the inbox
// exactly once, in each sender's own order, and the queue is left empty.
func TestSendGroupCommitsConcurrentSenders(t *testing.T) {
	in := archiveInbox(t)
	const senders, each = 8, 12
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			box := mailbox.New(in.Path, in.Lock)
			for i := 0; i < each; i++ {
				if err := box.Send(context.Background(), msg(fmt.Sprint(s), fmt.Sprintf("%d-%d", s, i))); err != nil {
					errs <- err
					return
				}
				// Acknowledged means on disk already.
				all, err := box.ReadAll()
				if err != nil {
					errs <- err
					return
				}
				if !containsText(all, fmt.Sprintf("%d-%d", s, i)) {
					errs <- fmt.Errorf("send of %d-%d returned before the message was in the inbox", s, i)
					return
				}
			}
		}(s)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	all, err := in.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != senders*each {
		t.Fatalf("inbox holds %d messages, want %d", len(all), senders*each)
	}
	next := map[string]int{}
	for _, m := range all {
		want := fmt.Sprintf("%s-%d", m.From, next[m.From])
		if m.Text != want {
			t.Fatalf("sender %s's messages out of order: got %s, want %s", m.From, m.Text, want)
		}
		next[m.From]++
	}
	left, _ := os.ReadDir(mailbox.SpoolDir(in.Path))
	if len(left) != 0 {
		t.Fatalf("queue not emptied: %d files left", len(left))
	}
}

func containsText(ms []mailbox.Message, text string) bool {
	for _, m := range ms {
		if m.Text == text {
			return true
		}
	}
	return false
}

// A holder killed after writing the inbox but before retiring the queue
// leaves the queue files it took for messages already delivered. The next
// write of any kind (here a mark-read, as inbox-watch does) must not
// deliver them again, even though it also moves read messages to the
// archive.
func TestQueueLeftByACrashedHolderIsNotDeliveredTwice(t *testing.T) {
	in := archiveInbox(t)
	ctx := context.Background()
	m := msg("bob", "written just before the crash")
	if err := in.Send(ctx, m); err != nil {
		t.Fatal(err)
	}
	// Recreate the state the crash leaves: the message is in the inbox and
	// its queue file, marked taken, is still there.
	queue := mailbox.SpoolDir(in.Path)
	stale := filepath.Join(queue, "00000000000000000001-1-000000000000.msg.taken")
	b, _ := json.Marshal(m)
	if err := os.MkdirAll(queue, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, b, 0o600); err != nil {
		t.Fatal(err)
	}
	all, _ := in.ReadAll()
	if _, err := in.MarkRead(ctx, all); err != nil {
		t.Fatal(err)
	}
	if err := in.Send(ctx, msg("carol", "later")); err != nil {
		t.Fatal(err)
	}
	inbox, _ := in.ReadAll()
	archived, _ := in.Archived()
	n := 0
	for _, x := range append(inbox, archived...) {
		if x.Text == m.Text {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the message is delivered %d times (inbox %d, archive %d)", n, len(inbox), len(archived))
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatal("the stale queue file was not retired")
	}
}

// A holder killed after taking the queue but before writing the inbox: the
// next write delivers what it took, once.
func TestQueueTakenByAHolderThatDiedBeforeWritingIsDelivered(t *testing.T) {
	in := archiveInbox(t)
	ctx := context.Background()
	if err := in.Send(ctx, msg("bob", "first")); err != nil {
		t.Fatal(err)
	}
	lost := msg("bob", "taken, never written")
	b, _ := json.Marshal(lost)
	stale := filepath.Join(mailbox.SpoolDir(in.Path), "00000000000000000001-1-000000000000.msg.taken")
	if err := os.MkdirAll(filepath.Dir(stale), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := in.Send(ctx, msg("carol", "later")); err != nil {
		t.Fatal(err)
	}
	all, _ := in.ReadAll()
	if got := texts(all); got != "first,taken, never written,later" {
		t.Fatalf("inbox holds %q", got)
	}
}

// The same message sent twice in one millisecond (a script repeating a
// line) is two deliveries, not one: only what a dead holder took is ever
// checked against the inbox.
func TestIdenticalMessagesAreAllDelivered(t *testing.T) {
	in := archiveInbox(t)
	ctx := context.Background()
	m := mailbox.Message{From: "bob", Text: "same line", Timestamp: "2026-11-21T10:00:00.000Z"}
	for i := 0; i < 3; i++ {
		if err := in.Send(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if all, _ := in.ReadAll(); len(all) != 3 {
		t.Fatalf("three identical sends left %d messages: %q", len(all), texts(all))
	}
}

// An uncontended send writes the inbox and nothing else: no queue file,
// no queue folder, no lock left behind.
func TestUncontendedSendLeavesNothingBeside(t *testing.T) {
	in := archiveInbox(t)
	if err := in.Send(context.Background(), msg("bob", "hello")); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(in.Path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case filepath.Base(in.Path), "." + filepath.Base(in.Path) + ".flock":
		default:
			t.Errorf("an uncontended send left %s beside the inbox", e.Name())
		}
	}
	if all, _ := in.ReadAll(); texts(all) != "hello" {
		t.Fatalf("inbox holds %q", texts(all))
	}
}

// While another process holds the lock (here Claude Code's own lock
// directory, fresh), a send queues its message and waits; once the lock is
// released the message is written, and the queue is left empty.
func TestSendQueuesWhileTheLockIsHeld(t *testing.T) {
	for _, holder := range []string{"claude", "paneteam"} {
		t.Run(holder, func(t *testing.T) {
			in := archiveInbox(t)
			ctx := context.Background()
			if err := in.Send(ctx, msg("bob", "first")); err != nil {
				t.Fatal(err)
			}
			var release func() error
			switch holder {
			case "claude":
				if err := os.Mkdir(in.Path+".lock", 0o700); err != nil {
					t.Fatal(err)
				}
				release = func() error { return os.Remove(in.Path + ".lock") }
			case "paneteam":
				unlock, err := lockfile.Lock(ctx, in.Path, lockfile.Options{})
				if err != nil {
					t.Fatal(err)
				}
				release = unlock
			}
			done := make(chan error, 1)
			go func() { done <- mailbox.New(in.Path, in.Lock).Send(ctx, msg("carol", "waited")) }()
			queue := mailbox.SpoolDir(in.Path)
			testutil.Eventually(t, 5*time.Second, "the waiting send queued no message", func() bool {
				left, _ := os.ReadDir(queue)
				return len(left) == 1
			})
			select {
			case err := <-done:
				t.Fatalf("the send returned (%v) while the lock was held", err)
			default:
			}
			if err := release(); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if all, _ := in.ReadAll(); texts(all) != "first,waited" {
				t.Fatalf("inbox holds %q", texts(all))
			}
			if left, _ := os.ReadDir(queue); len(left) != 0 {
				t.Fatalf("queue not emptied: %d files left", len(left))
			}
		})
	}
}

// A sender whose message another paneteam holder took and wrote while it
// waited is done once it gets its turn: it returns without taking the
// inbox's lock again, here even though Claude Code holds that lock by
// then (it would otherwise wait for it and time out).
func TestSenderWhoseMessageWasWrittenMeanwhileDoesNotLockAgain(t *testing.T) {
	in := archiveInbox(t)
	in.Lock = lockfile.Options{Timeout: time.Second}
	ctx := context.Background()
	if err := in.Send(ctx, msg("bob", "first")); err != nil {
		t.Fatal(err)
	}
	// Another paneteam process queues ahead of the sender...
	q := flock.New(lockfile.QueuePath(in.Path))
	if err := q.Lock(); err != nil {
		t.Fatal(err)
	}
	defer q.Unlock()
	done := make(chan error, 1)
	go func() { done <- mailbox.New(in.Path, in.Lock).Send(ctx, msg("carol", "taken along")) }()
	queue := mailbox.SpoolDir(in.Path)
	var queued string
	testutil.Eventually(t, 5*time.Second, "the waiting send queued no message", func() bool {
		// A message is queued once renamed to .msg; its .tmp is still
		// being written, and a holder never takes it.
		left, _ := filepath.Glob(filepath.Join(queue, "*.msg"))
		if len(left) == 1 {
			queued = left[0]
		}
		return queued != ""
	})
	// ...and, as a holder does, takes the queued message, writes it and
	// retires its file.
	if err := os.Rename(queued, queued+".taken"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(queued + ".taken")
	if err != nil {
		t.Fatal(err)
	}
	var m mailbox.Message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	all, _ := in.ReadAll()
	out, err := mailbox.Encode(append(all, m))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in.Path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(queued + ".taken"); err != nil {
		t.Fatal(err)
	}
	// Claude Code takes the inbox's lock, and the queue moves on.
	if err := os.Mkdir(in.Path+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	q.Unlock()
	if err := <-done; err != nil {
		t.Fatalf("the sender whose message was written went on to wait for the lock: %v", err)
	}
	if all, _ := in.ReadAll(); texts(all) != "first,taken along" {
		t.Fatalf("inbox holds %q", texts(all))
	}
}

// A library caller that leaves the time out gets the moment of sending
// on disk, as Claude Code writes it, not "timestamp": "".
func TestSendStampsAMessageWithoutATime(t *testing.T) {
	in := archiveInbox(t)
	before := time.Now().Add(-time.Millisecond)
	if err := in.Send(context.Background(), mailbox.Message{From: "bob", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(in.Path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(raw, &rows); err != nil || len(rows) != 1 {
		t.Fatalf("inbox %s: %v", raw, err)
	}
	ts, _ := rows[0]["timestamp"].(string)
	at, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil || at.Before(before) || at.After(time.Now()) || !mailbox.ValidTimestamp(ts) {
		t.Fatalf("timestamp %q, want the time of sending in Claude Code's form (%v)", ts, err)
	}
}
