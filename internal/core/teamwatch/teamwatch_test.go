package teamwatch

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

func TestDecide(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Second)
	for _, c := range []struct {
		name          string
		pane          string
		pending       int
		active        bool
		idle, active2 time.Time
		want          State
	}{
		{"dead pane", "dead", 1, true, t0, t1, StateGone},
		{"request waiting", "alive", 1, true, t0, t1, StateNeedsYou},
		{"idle after last activity", "alive", 0, true, t1, t0, StateIdle},
		{"idle at the same ms as activity", "", 0, true, t1, t1, StateIdle},
		{"activity after idle", "unknown", 0, false, t0, t1, StateActive},
		{"no idle: isActive true", "", 0, true, time.Time{}, t1, StateActive},
		{"no idle: isActive false", "", 0, false, time.Time{}, t1, StateIdle},
	} {
		if got := Decide(c.pane, c.pending, c.active, c.idle, c.active2); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func appendMsg(t *testing.T, tm team.Team, to string, m mailbox.Message) {
	t.Helper()
	if m.Timestamp == "" {
		m.Timestamp = mailbox.Timestamp(time.Now())
	}
	if err := mailbox.New(tm.InboxPath(to), lockfile.Options{}).Append(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

func frameText(t *testing.T, v map[string]any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTake reads members, unread counts, tasks with blockers, waiting
// requests and locks from real files.
func TestTake(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice", "bob", "eve")...)
	ctx := context.Background()
	appendMsg(t, tm, "bob", mailbox.Message{From: "alice", Text: "one"})
	appendMsg(t, tm, "bob", mailbox.Message{From: "alice", Text: "two"})
	appendMsg(t, tm, team.LeadName, mailbox.Message{From: "alice", Text: frameText(t, map[string]any{
		"type": "plan_approval_request", "from": "alice", "requestId": "plan_approval-1@alice@crew", "planContent": "# Plan",
		"planFilePath": "/tmp/plan.md", "timestamp": mailbox.Timestamp(time.Now())})})
	appendMsg(t, tm, team.LeadName, mailbox.Message{From: "bob", Text: frameText(t, map[string]any{
		"type": "sandbox_permission_request", "requestId": "sandbox-1-abc", "workerName": "bob", "hostPattern": map[string]any{"host": "example.com"}})})
	appendMsg(t, tm, "bob", mailbox.Message{From: team.LeadName, Text: frameText(t, map[string]any{
		"type": "sandbox_permission_response", "requestId": "sandbox-1-abc", "host": "example.com", "allow": true})})
	appendMsg(t, tm, team.LeadName, mailbox.Message{From: "eve", Text: frameText(t, map[string]any{"type": "idle_notification", "from": "eve"})})
	tasks := tm.Tasks(lockfile.Options{})
	a, _ := tasks.Create(ctx, team.NewTask{Subject: "A", Owner: "alice"})
	b, err := tasks.Create(ctx, team.NewTask{Subject: "B", BlockedBy: []string{a.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tasks.Path(b.ID)+".lock", 0o700); err != nil {
		t.Fatal(err)
	}

	s, err := Take(ctx, tm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	alice, bob, eve := s.Member("alice"), s.Member("bob"), s.Member("eve")
	if alice.State != StateNeedsYou || alice.Waiting != 1 {
		t.Errorf("alice: %s with %d pending, want needs-you with her plan waiting", alice.State, alice.Waiting)
	}
	if bob.State != StateActive || bob.Waiting != 0 || bob.Unread != 3 {
		t.Errorf("bob: %s, %d pending, %d unread; want active, his answered request not pending, 3 unread", bob.State, bob.Waiting, bob.Unread)
	}
	if eve.State != StateIdle {
		t.Errorf("eve: %s, want idle after her idle_notification", eve.State)
	}
	if len(s.Tasks) != 2 || len(s.Tasks[1].OpenBlockers) != 1 || s.Tasks[1].OpenBlockers[0] != a.ID || s.Tasks[0].Owner != "alice" {
		t.Errorf("tasks %+v, want B blocked by A, A owned by alice", s.Tasks)
	}
	if len(s.Locks) != 1 || s.Locks[0].Path != "tasks/crew/"+b.ID+".json.lock" {
		t.Errorf("locks %+v, want the task lock", s.Locks)
	}

	// Alice leaves: her request is no longer waiting.
	if _, err := tm.Update(ctx, lockfile.Options{}, func(c *team.Config) error { c.RemoveMember("alice"); return nil }); err != nil {
		t.Fatal(err)
	}
	if p, err := waitingRequests(tm, nil, nil); err != nil || len(p) != 0 {
		t.Errorf("pending after alice left: %v %v, want none", p, err)
	}
}

// TestDiffLockReportedOnce: a lock held past the limit is one event, not
// one per snapshot, even as its holder refreshes the mtime.
func TestDiffLockReportedOnce(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	snap := func(at time.Duration, since time.Duration) *Snapshot {
		return &Snapshot{Team: "crew", Taken: t0.Add(at), Locks: []Lock{{Path: "x.lock", Since: t0.Add(since), ino: 7}}}
	}
	if ev := Diff(snap(4*time.Second, 0), snap(5*time.Second, 0), 5*time.Second); len(ev) != 1 || ev[0].Kind != KindLockHeld {
		t.Errorf("at 5s: %+v, want one lock-held", ev)
	}
	if ev := Diff(snap(5*time.Second, 0), snap(9*time.Second, 0), 5*time.Second); len(ev) != 0 {
		t.Errorf("at 9s: %+v, want nothing new", ev)
	}
}

// TestWatcherReportsAProblemOnce: an inbox that stays broken is reported
// once, not on every snapshot, while other events keep coming.
func TestWatcherReportsAProblemOnce(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{})
	var problems []string
	w := NewWatcher(tm, WatchOptions{Poll: 20 * time.Millisecond, OnError: func(err error) { problems = append(problems, err.Error()) }})
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := w.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tm.InboxPath("alice"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		appendMsg(t, tm, "bob", mailbox.Message{From: "carl", Text: "hello"})
		if _, ev, err := w.Next(ctx); err != nil || len(ev) == 0 || ev[0].Kind != KindMessage {
			t.Fatalf("round %d: %+v %v, want the message", i, ev, err)
		}
	}
	if len(problems) != 1 {
		t.Errorf("problems reported %d times, want once: %q", len(problems), problems)
	}
}
