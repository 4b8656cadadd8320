package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"
)

type taskGetOptions struct {
	taskOptions
	ID string
}

func taskGetCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "get",
		Usage:     "show one task in full",
		ArgsUsage: "ID",
		Description: `Prints every field of one task, and which unfinished tasks it still waits for:

    paneteam task get --team review 3`,
		Flags: []ucli.Flag{teamFlag(), jsonFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			id, err := readTaskID(c)
			if err != nil {
				return err
			}
			return runTaskGet(ctx, env, taskGetOptions{taskOptions: readTaskOptions(c, env), ID: id})
		},
	}
}

func runTaskGet(ctx context.Context, env Env, o taskGetOptions) error {
	b, err := o.view(ctx, env)
	if err != nil {
		return err
	}
	task, err := b.List().Get(o.ID)
	if err != nil {
		return err
	}
	if o.JSON {
		return printTask(env, b, task)
	}
	_, byID, err := readTasks(env, b)
	if err != nil {
		return err
	}
	return printTaskDetail(env, task, byID)
}
