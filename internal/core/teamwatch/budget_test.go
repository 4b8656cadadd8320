package teamwatch

import (
	"testing"

	"github.com/paneteam/paneteam/internal/core/budget"
)

func budgetSnap(state string, spent float64) *Snapshot {
	s := &Snapshot{Team: "t", Members: []Member{{Name: "bob"}}}
	if state != "" {
		s.Members[0].Budget = &budget.Status{USD: 1, SpentUSD: &spent, State: state}
	}
	return s
}

// monitor tells once when a member's budget is near (80%) and once when
// it stopped the member, not at every snapshot in between.
func TestDiffTellsABudgetsWarningAndStopOnce(t *testing.T) {
	steps := []struct {
		state string
		spent float64
		want  string
	}{
		{"", 0, ""},
		{budget.OK, 0.5, ""},
		{budget.Warned, 0.85, "budget warning: $0.85 spent of $1.00"},
		{budget.Warned, 0.9, ""},
		{budget.Stopped, 1.05, "stopped over budget: $1.05 spent of $1.00"},
		{budget.Stopped, 1.05, ""},
	}
	prev := budgetSnap(steps[0].state, steps[0].spent)
	for _, st := range steps[1:] {
		cur := budgetSnap(st.state, st.spent)
		var got []string
		for _, e := range Diff(prev, cur, 0) {
			if e.Kind == KindBudget {
				got = append(got, e.What())
			}
		}
		if st.want == "" && len(got) != 0 || st.want != "" && (len(got) != 1 || got[0] != st.want) {
			t.Errorf("%s at $%v: events %q, want %q", st.state, st.spent, got, st.want)
		}
		prev = cur
	}
}
