package cli

import (
	"strconv"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/internal/core/spawn"
)

// budgetSpawn holds the teammate req starts to its --budget, or its
// team's: an agent CLI's wrapper watches it itself; a Claude Code
// teammate runs under 'paneteam budget-guard', a small parent in its
// pane. A teammate whose spending paneteam cannot read is refused a
// budget of its own, before anything is written.
func budgetSpawn(env Env, req *spawn.Request, o spawnPaneOptions) error {
	state, err := env.stateDir()
	if err != nil {
		if o.Budget > 0 {
			return usagef("--budget needs paneteam's state folder: %v", err)
		}
		return nil
	}
	usdLimit := o.Budget
	if usdLimit <= 0 && budget.TeamBudget(state, req.Team) <= 0 {
		return nil
	}
	switch {
	case o.Host.Host != "":
		if o.Budget <= 0 {
			warnf(env, "%s runs on %s: paneteam reads no usage there, so the team's budget does not hold it", o.Name, o.Host.Host)
			return nil
		}
		return usagef("--budget with --host: paneteam reads no usage from another host, so nothing could hold %s to a budget; leave out --budget", o.Host.Host)
	case o.Agent == "" && !o.Claude:
		if o.Budget <= 0 {
			return nil // a command of the person's: the team's budget cannot see it
		}
		return usagef("--budget: paneteam cannot see what %s spends (only Claude Code, --claude, and the agent CLIs, --agent, record their tokens where paneteam reads them); leave out --budget", o.Command[0])
	}
	// The watcher reads the launch record and keeps the budget's state in
	// the same state folder as this spawn.
	vars := []string{"PANETEAM_STATE_DIR=" + state}
	if g := env.Getenv("PANETEAM_BUDGET_GRACE"); g != "" {
		vars = append(vars, "PANETEAM_BUDGET_GRACE="+g)
	}
	if a, ok := req.Program.(agentrun.Spawner); ok {
		a.Budget, a.Env = usdLimit, vars
		req.Program = a
		return nil
	}
	req.Program = budget.Guarded{Inner: req.Program, Prefix: []string{env.Exe, GuardCommand, "--budget", strconv.FormatFloat(usdLimit, 'f', -1, 64), "--"}, Env: vars}
	return nil
}
