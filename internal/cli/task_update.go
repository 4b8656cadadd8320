package cli

import (
	"context"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/tasks"
)

type taskUpdateOptions struct {
	taskOptions
	ID     string
	Change tasks.Change
}

func taskUpdateCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "update",
		Usage:     "change a task's status, owner, text, note or dependencies",
		ArgsUsage: "ID",
		Description: `Changes the given fields of one task under its lock; fields not given, and
fields paneteam does not know, are kept as they are.

    paneteam task update --team review 3 --status completed
    paneteam task update --team review 4 --add-blocked-by 3
    paneteam task update --team review 5 --owner ""      # unassign (back to pending)
    paneteam task update --team review 5 --note "parser done, lexer next"

As in Claude Code, a teammate (PANETEAM_AGENT, or --from) that sets an
unowned task in_progress becomes its owner, and a new owner gets a
task_assignment message from whoever made the change. Setting a status
never clears the owner. --add-blocked-by refuses a task that does not exist
and a dependency cycle. --note is kept in the task's metadata, where an
MCP teammate's update_task keeps its note.`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "status", Usage: "pending, in_progress or completed"},
			&ucli.StringFlag{Name: "owner", Usage: "team member who owns it (\"\" to unassign)"},
			&ucli.StringFlag{Name: "subject", Usage: "new title"},
			&ucli.StringFlag{Name: "description", Usage: "new description"},
			&ucli.StringFlag{Name: "active-form", Usage: "new present-continuous form"},
			&ucli.StringFlag{Name: "note", Usage: "a short note on the task's progress (metadata.note)"},
			&ucli.StringFlag{Name: "add-blocked-by", Usage: "comma-separated ids this task must also wait for"},
			fromFlag(),
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readTaskUpdateOptions(c, env)
			if err != nil {
				return err
			}
			return runTaskUpdate(ctx, env, o)
		},
	}
}

func readTaskUpdateOptions(c *ucli.Command, env Env) (taskUpdateOptions, error) {
	id, err := readTaskID(c)
	if err != nil {
		return taskUpdateOptions{}, err
	}
	if _, err := readStatus(c); err != nil {
		return taskUpdateOptions{}, err
	}
	if readFlags(c).IsSet("subject") && strings.TrimSpace(readFlags(c).String("subject")) == "" {
		return taskUpdateOptions{}, usagef("--subject is empty: give the new title")
	}
	addBlockedBy, err := readIDList(c, "add-blocked-by")
	if err != nil {
		return taskUpdateOptions{}, err
	}
	return taskUpdateOptions{taskOptions: readTaskOptions(c, env), ID: id, Change: tasks.Change{
		Status:       readOptional(c, "status"),
		Owner:        readOptional(c, "owner"),
		Subject:      readOptional(c, "subject"),
		Description:  readOptional(c, "description"),
		ActiveForm:   readOptional(c, "active-form"),
		Note:         readOptional(c, "note"),
		AddBlockedBy: addBlockedBy,
	}}, nil
}

func runTaskUpdate(ctx context.Context, env Env, o taskUpdateOptions) error {
	b, err := o.board(ctx, env)
	if err != nil {
		return err
	}
	task, err := b.Update(ctx, o.ID, o.Change)
	if err != nil {
		return taskError(err)
	}
	return printChanged(env, b, o.JSON, task, "updated")
}
