package cli

import (
	"fmt"
	"io"

	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

// setTeamBudget keeps team t's budget in paneteam's state folder.
func setTeamBudget(env Env, t team.Team, usdLimit float64) error {
	state, err := env.stateDir()
	if err != nil {
		return fmt.Errorf("a budget is kept in paneteam's state folder: %w", err)
	}
	return budget.SetTeam(state, t, usdLimit)
}

// budgetWord is a member's budget as status shows it.
func budgetWord(s *budget.Status) string {
	if s == nil {
		return "-"
	}
	of := usd(s.USD)
	if s.Team {
		of += " (team)"
	}
	sp := "?"
	if s.SpentUSD != nil {
		sp = usd(*s.SpentUSD)
	}
	w := sp + " of " + of
	if s.State != budget.OK {
		w += " " + s.State
	}
	return w
}

// writeBudgets says, under status's table, each member's budget and,
// once stopped, why.
func writeBudgets(w io.Writer, members []teamwatch.Member) {
	for _, m := range members {
		if b := m.Budget; b != nil {
			line := "  budget " + visible.Line(m.Name) + ": " + budgetWord(b)
			if b.State == budget.Stopped && b.Why != "" {
				line += ": " + visible.Line(b.Why)
			}
			fmt.Fprintln(w, line)
		}
	}
}

// budgetSegment is the status line's word on budgets: how many members
// were stopped over theirs, and how many are near it.
func budgetSegment(members []teamwatch.Member) string {
	warned, stopped := 0, 0
	for _, m := range members {
		if m.Budget != nil {
			switch m.Budget.State {
			case budget.Warned:
				warned++
			case budget.Stopped:
				stopped++
			}
		}
	}
	seg := ""
	if stopped > 0 {
		seg += fmt.Sprintf(" #[fg=red]$✗%d over budget#[default]", stopped)
	}
	if warned > 0 {
		seg += fmt.Sprintf(" #[fg=yellow]$!%d near budget#[default]", warned)
	}
	return seg
}
