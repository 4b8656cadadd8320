package cli

import (
	"context"
	"fmt"
	"strconv"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

func budgetCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "budget",
		Usage:     "show or set a team's spending limit in US dollars",
		ArgsUsage: "[USD]",
		Description: `With USD, sets the team's budget (0 removes it); without, shows it and
each member's, with what each has spent against it.

A budget is ` + budgetHelp + `. It is held by the paneteam process that
runs each teammate: the wrapper of an agent CLI (spawn-pane --agent), a
small parent in a Claude Code teammate's pane (spawn-pane --claude), the
router under 'paneteam claude'. Teammates started before the team's budget
was set are not held to it. It is kept in paneteam's state folder.

    paneteam team-create review --budget 20
    paneteam spawn-pane --team review --name alice --claude --budget 5
    paneteam budget --team review 30`,
		Flags: []ucli.Flag{teamFlag(), jsonFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.NArg() > 1 {
				return usagef("budget takes at most one USD, got %d arguments", c.NArg())
			}
			t, cfg, err := readTeamScope(c).open(ctx, env)
			if err != nil {
				return err
			}
			if c.NArg() == 1 {
				v, err := strconv.ParseFloat(c.Args().First(), 64)
				if err != nil || !validUSD(v) {
					return usagef("budget %q: give an amount of US dollars, e.g. 20 (0 removes the budget)", c.Args().First())
				}
				return setTeamBudget(env, t, v)
			}
			return showBudgets(env, t, cfg, readFlags(c).Bool("json"))
		},
	}
}

func showBudgets(env Env, t team.Team, cfg *team.Config, asJSON bool) error {
	state, err := env.stateDir()
	if err != nil {
		return err
	}
	tb := budget.TeamBudget(state, t)
	members := budget.All(state, t)
	if asJSON {
		var teamUSD *float64
		if tb > 0 {
			teamUSD = &tb
		}
		if members == nil {
			members = map[string]budget.Status{}
		}
		return printJSON(env.Stdout, map[string]any{"team": t.Name, "usd": teamUSD, "members": members})
	}
	if tb > 0 {
		fmt.Fprintf(env.Stdout, "%s: team budget %s\n", visible.Line(t.Name), usd(tb))
	} else {
		fmt.Fprintf(env.Stdout, "%s: no team budget\n", visible.Line(t.Name))
	}
	for _, m := range cfg.Members {
		if s, ok := members[m.Name]; ok {
			fmt.Fprintf(env.Stdout, "  %s: %s\n", visible.Line(m.Name), budgetWord(&s))
		}
	}
	return nil
}
