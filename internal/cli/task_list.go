package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/team"
)

type taskListOptions struct {
	taskOptions
	Status    string // "" for any
	Owner     *string
	Available bool
}

func taskListCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "list",
		Usage: "show the tasks: id, status, owner, subject and what blocks them",
		Description: `Lists the team's tasks in id order. "blocked by" shows only the blockers
that are not completed yet. Files that do not parse are skipped with a
warning on stderr (and left untouched).

    paneteam task list --team review --available       # what can be claimed now
    paneteam task list --team review --owner alice --json

--json prints an array of the task objects as stored, each with a computed
"blocked" flag.`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "status", Usage: "only tasks with this status (pending, in_progress, completed)"},
			&ucli.StringFlag{Name: "owner", Usage: "only tasks owned by this member"},
			&ucli.BoolFlag{Name: "available", Usage: "only tasks that can be claimed now: pending, unowned, not blocked"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.NArg() != 0 {
				return usagef("task list takes no arguments (got %q)", c.Args().First())
			}
			status, err := readStatus(c)
			if err != nil {
				return err
			}
			return runTaskList(ctx, env, taskListOptions{taskOptions: readTaskOptions(c, env),
				Status: status, Owner: readOptional(c, "owner"), Available: readFlags(c).Bool("available")})
		},
	}
}

func runTaskList(ctx context.Context, env Env, o taskListOptions) error {
	b, err := o.view(ctx, env)
	if err != nil {
		return err
	}
	all, byID, err := readTasks(env, b)
	if err != nil {
		return err
	}
	var shown []*team.Task
	for _, t := range all {
		switch {
		case o.Status != "" && t.Status != o.Status:
		case o.Owner != nil && !t.OwnedBy(*o.Owner, b.Team.Name):
		case o.Available && !team.Available(t, byID):
		default:
			shown = append(shown, t)
		}
	}
	if o.JSON {
		return printTasksJSON(env, shown, byID)
	}
	return printTaskTable(env, shown, byID)
}
