package cli

import (
	"context"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/tasks"
	"github.com/paneteam/paneteam/team"
)

// Every task subcommand is options read from its flags in one place and a
// run function over internal/core/tasks, the rule set the MCP server's
// task tools share.

func taskCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "task",
		Usage: "create, list, claim and update the team's shared task list",
		Description: `A team's task list is one JSON file per task under tasks/<team>/, the same
files Claude Code teammates read and claim, so people, scripts and agents can
share one list:

    paneteam task create --team review "Write parser tests"
    paneteam task create --team review "Ship it" --blocked-by 1
    paneteam task list --team review --available
    paneteam task claim --team review --owner alice 1

A task waits for the tasks in its blockedBy until they are completed; that is
worked out on every read. Ids are never reused, even after a delete.

The rules are Claude Code's: a teammate (PANETEAM_AGENT) that sets an
unowned task in_progress becomes its owner, and every change of owner sends
the new owner a task_assignment message from whoever made it.`,
		Commands: []*ucli.Command{
			taskCreateCommand(env),
			taskListCommand(env),
			taskGetCommand(env),
			taskClaimCommand(env),
			taskUpdateCommand(env),
			taskDeleteCommand(env),
			taskReleaseCommand(env),
		},
	}
}

func fromFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "from", Usage: "who acts (the sender of the task_assignment message)",
		Sources: ucli.EnvVars("PANETEAM_AGENT"), Value: team.LeadName}
}

// taskOptions are the flags every task subcommand shares.
type taskOptions struct {
	Scope teamScope
	JSON  bool
	// From is --from as the person typed it ("" for the default:
	// $PANETEAM_AGENT, else the lead).
	From string
}

func readTaskOptions(c *ucli.Command, env Env) taskOptions {
	return taskOptions{Scope: readTeamScope(c), JSON: readFlags(c).Bool("json"), From: readFrom(c, env)}
}

// board opens the team's task list as the caller acts on it: By is who
// the caller is (post.Caller.Sender), the sender of any notice.
func (o taskOptions) board(ctx context.Context, env Env) (*tasks.Board, error) {
	b, err := o.view(ctx, env)
	if err != nil {
		return nil, err
	}
	if b.By, err = b.Caller.Sender(b.Config, o.From); err != nil {
		return nil, usageError{err}
	}
	return b, nil
}

// view opens the team's task list for a command that sends nothing, so
// the caller's sender settings are not asked for.
func (o taskOptions) view(ctx context.Context, env Env) (*tasks.Board, error) {
	t, cfg, err := o.Scope.open(ctx, env)
	if err != nil {
		return nil, err
	}
	return &tasks.Board{Team: t, Config: cfg, Lock: o.Scope.Lock, Caller: callerOf(env)}, nil
}

// readTaskID is the one ID argument of a task subcommand, checked before it
// gets anywhere near a file name.
func readTaskID(c *ucli.Command) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("task %s takes one task ID, got %d arguments", c.Name, c.NArg())
	}
	id := c.Args().First()
	if err := team.CheckTaskID(id); err != nil {
		return "", usageError{err}
	}
	return id, nil
}

// readIDList reads a flag like "1,2, 3" as a list of task ids, checked.
func readIDList(c *ucli.Command, flag string) ([]string, error) {
	var ids []string
	for _, p := range strings.Split(readFlags(c).String(flag), ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if err := team.CheckTaskID(p); err != nil {
			return nil, usagef("--%s: %w", flag, err)
		}
		ids = append(ids, p)
	}
	return ids, nil
}

// readStatus reads a --status flag, refusing what is not a task status.
func readStatus(c *ucli.Command) (string, error) {
	status := readFlags(c).String("status")
	if readFlags(c).IsSet("status") && !team.ValidStatus(status) {
		return "", usagef("--status %q is not a task status: use one of %s", status, strings.Join(team.Statuses, ", "))
	}
	return status, nil
}

// readOptional is a flag's value when it was given, else nil.
func readOptional(c *ucli.Command, flag string) *string {
	if !readFlags(c).IsSet(flag) {
		return nil
	}
	v := readFlags(c).String(flag)
	return &v
}
