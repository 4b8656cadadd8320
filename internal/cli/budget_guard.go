package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"
)

// GuardCommand is the hidden command spawn-pane puts before a Claude Code
// teammate's command line when it has a budget.
const GuardCommand = "budget-guard"

func budgetGuardCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      GuardCommand,
		Usage:     "(internal) run a Claude Code teammate's command as a child, stopping it past its budget",
		Hidden:    true,
		ArgsUsage: "-- COMMAND [ARGS...]",
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "name", Usage: "the teammate's name", Sources: ucli.EnvVars("PANETEAM_AGENT")},
			budgetFlag(budgetHelp + " (0: its team's)"),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			argv := c.Args().Slice()
			if len(argv) > 0 && argv[0] == "--" {
				argv = argv[1:]
			}
			if len(argv) == 0 || readFlags(c).String("name") == "" {
				return usagef("%s is put in a Claude Code teammate's pane by spawn-pane --budget: start it that way", GuardCommand)
			}
			t, cfg, err := readTeamScope(c).open(ctx, env)
			if err != nil {
				return err
			}
			_, claudeLeads := cfg.LeadProcess()
			return runGuarded(ctx, env, t, readFlags(c).String("name"), readFlags(c).Float("budget"), argv, !claudeLeads)
		},
	}
}
