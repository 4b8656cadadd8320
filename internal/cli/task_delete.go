package cli

import (
	"context"
	"fmt"

	ucli "github.com/urfave/cli/v3"
)

type taskDeleteOptions struct {
	taskOptions
	ID string
}

func taskDeleteCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "delete",
		Usage:     "remove a task (its id is never reused)",
		ArgsUsage: "ID",
		Description: `Unlinks <id>.json after recording the id in .highwatermark, so no later
task gets it. Tasks that listed it in blockedBy no longer wait for it.

    paneteam task delete --team review 3`,
		Flags: []ucli.Flag{teamFlag(), jsonFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			id, err := readTaskID(c)
			if err != nil {
				return err
			}
			return runTaskDelete(ctx, env, taskDeleteOptions{taskOptions: readTaskOptions(c, env), ID: id})
		},
	}
}

func runTaskDelete(ctx context.Context, env Env, o taskDeleteOptions) error {
	b, err := o.view(ctx, env)
	if err != nil {
		return err
	}
	if err := b.Delete(ctx, o.ID); err != nil {
		return err
	}
	if o.JSON {
		return printJSON(env.Stdout, map[string]any{"id": o.ID, "deleted": true})
	}
	_, err = fmt.Fprintf(env.Stdout, "task %s deleted\n", o.ID)
	return err
}
