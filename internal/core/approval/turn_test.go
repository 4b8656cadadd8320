package approval

import (
	"context"
	"testing"
	"time"

	"github.com/paneteam/paneteam/team"
)

// setActive records, as Claude Code does at a turn's start (true) and end
// (false), whether name is at work.
func setActive(t *testing.T, l *Lead, name string, active bool) {
	t.Helper()
	if _, err := l.Team.Update(context.Background(), l.Lock, func(c *team.Config) error {
		c.Member(name).IsActive = &active
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A plan answered while its teammate is still in the turn that submitted
// it is written once that turn ends: Claude Code 2.1.332 can apply an
// approval read at that moment and never tell the model (DefaultTurnWait).
func TestPlanAnswerWaitsForTheTeammatesTurnToEnd(t *testing.T) {
	l := crew(t)
	id := "plan_approval-1767225600000@alice@crew"
	writeInbox(t, l, entry("alice", planFrame(id, "alice", examplePlan), t0))
	setActive(t, l, "alice", true)
	done := make(chan error, 1)
	go func() {
		_, err := l.Answer(context.Background(), id, "", Decision{Approve: true})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the approval was written while alice's turn went on (err %v); alice's inbox holds %d messages", err, len(inbox(t, l, "alice")))
	case <-time.After(500 * time.Millisecond):
	}
	if got := inbox(t, l, "alice"); len(got) != 0 {
		t.Fatalf("alice's inbox holds %d messages while her turn goes on, want none yet", len(got))
	}
	setActive(t, l, "alice", false)
	ended := time.Now()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the approval was not written within 5s of alice's turn ending")
	}
	// Claude Code's session counts as idle only after its Stop hook,
	// which records isActive false first.
	if took := time.Since(ended); took < turnSettle {
		t.Errorf("the approval was written %v after isActive turned false, want at least %v", took, turnSettle)
	}
	if got := inbox(t, l, "alice"); len(got) != 1 {
		t.Fatalf("alice's inbox holds %d messages, want the approval", len(got))
	}
}

// A teammate that stays at work past TurnWait still gets its answer, and
// the answers to tool calls (which the teammate waits on inside its turn)
// are never held.
func TestOnlyPlanAnswersWaitAndNotForever(t *testing.T) {
	l := crew(t)
	l.TurnWait = 300 * time.Millisecond
	plan := "plan_approval-1767225600000@alice@crew"
	writeInbox(t, l, entry("alice", planFrame(plan, "alice", examplePlan), t0),
		entry("bob", permFrame(permID, "bob", "Bash", exampleInput), t0))
	setActive(t, l, "alice", true)
	setActive(t, l, "bob", true)

	start := time.Now()
	if _, err := l.Answer(context.Background(), permID, "", Decision{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 200*time.Millisecond {
		t.Errorf("the answer to bob's tool call took %v: it waited for his turn, which waits for it", took)
	}
	start = time.Now()
	if _, err := l.Answer(context.Background(), plan, "", Decision{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 300*time.Millisecond || took > 3*time.Second {
		t.Errorf("the plan answer to alice, whose turn did not end, took %v: want TurnWait (300ms), then written", took)
	}
	if got := inbox(t, l, "alice"); len(got) != 1 {
		t.Fatalf("alice's inbox holds %d messages, want the approval", len(got))
	}
}
