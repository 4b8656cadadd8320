package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"
)

type taskClaimOptions struct {
	taskOptions
	ID    string
	Owner string
}

func taskClaimCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "claim",
		Usage:     "take a task: owner set, status in_progress; refused if taken, completed or blocked",
		ArgsUsage: "ID",
		Description: `Claims a task for a member atomically, under the task's lock: of many
claimants at the same moment exactly one wins. A task already owned by
someone else, completed, or waiting for an unfinished task is refused with
the reason and exit status 1. A new owner gets a task_assignment message.

    paneteam task claim --team review --owner alice 3`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "owner", Usage: "team member who takes the task (required)", Sources: ucli.EnvVars("PANETEAM_AGENT")},
			fromFlag(),
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			id, err := readTaskID(c)
			if err != nil {
				return err
			}
			if readFlags(c).String("owner") == "" {
				return usagef("task claim needs --owner NAME (or PANETEAM_AGENT)")
			}
			return runTaskClaim(ctx, env, taskClaimOptions{taskOptions: readTaskOptions(c, env), ID: id, Owner: readFlags(c).String("owner")})
		},
	}
}

func runTaskClaim(ctx context.Context, env Env, o taskClaimOptions) error {
	b, err := o.board(ctx, env)
	if err != nil {
		return err
	}
	task, err := b.Claim(ctx, o.ID, o.Owner)
	if err != nil {
		return taskError(err)
	}
	return printChanged(env, b, o.JSON, task, "claimed")
}
