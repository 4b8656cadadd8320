package approval

import (
	"context"
	"strings"
	"testing"
)

// TestRefusedDecisionsNameTheFix: an answer Claude Code would not take is
// refused with the flag to drop or the values to use, and without naming
// a Claude Code release: the person may run any release paneteam speaks
// to (docs/PROTOCOL.md §1), and the rule is the same in each.
func TestRefusedDecisionsNameTheFix(t *testing.T) {
	plan := "plan_approval-1767225600000@alice@crew"
	sandbox := "sandbox-1767225600000-k2j4h5g"
	for _, c := range []struct {
		name, frame string
		d           Decision
		say         string
	}{
		{"approval with feedback", permFrame(permID, "alice", "Bash", exampleInput),
			Decision{Approve: true, Feedback: "ok"}, "drop feedback (or deny with it)"},
		{"sandbox reply with feedback", sandboxFrame(sandbox, "alice", "registry.npmjs.org"),
			Decision{Approve: true, Feedback: "ok"}, "drop feedback"},
		{"plan with an unknown mode", planFrame(plan, "alice", examplePlan),
			Decision{Approve: true, Mode: "manual-ish"}, "use one of default, acceptEdits"},
	} {
		l := crew(t)
		writeInbox(t, l, entry("alice", c.frame, t0))
		rs := waiting(t, l)
		if len(rs) != 1 {
			t.Fatalf("%s: waiting %q, want one", c.name, ids(rs))
		}
		_, err := l.Answer(context.Background(), rs[0].ID, "", c.d)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.say) || !strings.Contains(msg, "Claude Code") || strings.Contains(msg, "2.1.") {
			t.Errorf("%s: %q, want it to say %q and name Claude Code without a release", c.name, msg, c.say)
		}
		if len(inbox(t, l, "alice")) != 0 {
			t.Errorf("%s: a refused decision wrote an answer", c.name)
		}
	}
}
