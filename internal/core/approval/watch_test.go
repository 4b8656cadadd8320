package approval

import (
	"context"
	"testing"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

func TestWatchDeliversWaitingThenEachNewRequestOnce(t *testing.T) {
	l := crew(t)
	writeInbox(t, l, entry("alice", permFrame("perm-1-aaaaaaa", "alice", "Bash", exampleInput), t0))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		done <- l.Watch(ctx, mailbox.WatchOptions{Poll: 50 * time.Millisecond}, func(rs []Request) error {
			for _, r := range rs {
				got <- r.ID
			}
			return nil
		})
	}()
	next := func(want string) {
		t.Helper()
		select {
		case id := <-got:
			if id != want {
				t.Fatalf("got %s, want %s", id, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s delivered", want)
		}
	}
	next("perm-1-aaaaaaa")
	in := mailbox.New(l.Team.InboxPath(team.LeadName), lockfile.Options{})
	// Sent, then marked read (and so archived) by someone else: still found.
	m := entry("bob", planFrame("plan_approval-2@bob@crew", "bob", examplePlan), t0.Add(time.Second))
	if err := in.Send(ctx, m); err != nil {
		t.Fatal(err)
	}
	next("plan_approval-2@bob@crew")
	if _, err := in.MarkRead(ctx, []mailbox.Message{m}); err != nil {
		t.Fatal(err)
	}
	if err := in.Send(ctx, entry("alice", "plain text", t0.Add(2*time.Second))); err != nil {
		t.Fatal(err)
	}
	if err := in.Send(ctx, entry("bob", sandboxFrame("sandbox-3-ccccccc", "bob", "x.example"), t0.Add(3*time.Second))); err != nil {
		t.Fatal(err)
	}
	next("sandbox-3-ccccccc")
	cancel()
	<-done
	select {
	case id := <-got:
		t.Fatalf("%s delivered twice", id)
	default:
	}
}

func TestNextReturnsTheFirstMatchingRequest(t *testing.T) {
	l := crew(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		time.Sleep(100 * time.Millisecond)
		in := mailbox.New(l.Team.InboxPath(team.LeadName), lockfile.Options{})
		in.Send(ctx, entry("alice", sandboxFrame("sandbox-1-aaaaaaa", "alice", "x.example"), t0))
		in.Send(ctx, entry("alice", permFrame(permID, "alice", "Bash", exampleInput), t0))
	}()
	r, err := l.Next(ctx, func(r Request) bool { return r.Kind == KindPermission })
	if err != nil || r.ID != permID {
		t.Fatalf("Next: %v %v", r.ID, err)
	}
}
