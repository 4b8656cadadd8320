package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"
)

type taskReleaseOptions struct {
	taskOptions
	ID string
}

func taskReleaseCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "release",
		Usage:     "give a task back: status pending, no owner",
		ArgsUsage: "ID",
		Description: `Puts a task back on the list for someone else to claim, as Claude Code does
for the tasks of a teammate that shuts down:

    paneteam task release --team review 3`,
		Flags: []ucli.Flag{teamFlag(), jsonFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			id, err := readTaskID(c)
			if err != nil {
				return err
			}
			return runTaskRelease(ctx, env, taskReleaseOptions{taskOptions: readTaskOptions(c, env), ID: id})
		},
	}
}

func runTaskRelease(ctx context.Context, env Env, o taskReleaseOptions) error {
	b, err := o.view(ctx, env)
	if err != nil {
		return err
	}
	task, err := b.Release(ctx, o.ID)
	if err != nil {
		return err
	}
	return printChanged(env, b, o.JSON, task, "released")
}
