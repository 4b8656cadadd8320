package cli

import (
	"context"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/team"
)

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
worked out on every read. Ids are never reused, even after a delete.`,
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
	return &ucli.StringFlag{Name: "from", Usage: "who assigns (the sender of the task_assignment message)",
		Sources: ucli.EnvVars("PANETEAM_AGENT"), Value: team.LeadName}
}

func taskCreateCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "create",
		Usage:     "add a task and print its id alone",
		ArgsUsage: "SUBJECT",
		Description: `Adds <id>.json with the next id (one more than the highest ever used,
counting deleted ones), under the task list's lock, as Claude Code does, so
both can add tasks at the same moment. The id alone is printed:

    id=$(paneteam task create --team review "Review the API" \
        --description "Read api/*.go and list problems" --blocked-by 1,2)

The subject (a short imperative title) is the argument, or --subject.
With --owner the task starts in_progress and the owner gets a
task_assignment message.`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "subject", Aliases: []string{"s"}, Usage: "short imperative title (instead of the SUBJECT argument)"},
			&ucli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "what done means"},
			&ucli.StringFlag{Name: "active-form", Usage: "present-continuous form shown while it runs (\"Reviewing the API\")"},
			&ucli.StringFlag{Name: "blocked-by", Usage: "comma-separated ids of tasks that must be completed first"},
			&ucli.StringFlag{Name: "owner", Usage: "team member who takes it now"},
			fromFlag(),
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			subject, err := createSubject(c)
			if err != nil {
				return err
			}
			blockedBy, err := idList(c, "blocked-by")
			if err != nil {
				return err
			}
			s, err := openTasks(ctx, c, env)
			if err != nil {
				return err
			}
			owner, err := s.member(c.String("owner"))
			if err != nil {
				return err
			}
			nt := team.NewTask{
				Subject:     subject,
				Description: c.String("description"),
				ActiveForm:  c.String("active-form"),
				Owner:       owner,
				BlockedBy:   blockedBy,
			}
			task, err := s.list.Create(ctx, nt)
			if err != nil {
				return err
			}
			if owner != "" {
				if err := s.notifyAssignment(ctx, c, task, c.String("from")); err != nil {
					return err
				}
			}
			if c.Bool("json") {
				return s.printTask(task)
			}
			_, err = fmt.Fprintln(env.Stdout, task.ID)
			return err
		},
	}
}

// createSubject is task create's subject: its one argument or --subject.
func createSubject(c *ucli.Command) (string, error) {
	switch {
	case c.NArg() > 1:
		return "", usagef("task create takes one SUBJECT, got %d arguments: quote it, such as task create \"Write parser tests\"", c.NArg())
	case c.NArg() == 1 && c.IsSet("subject"):
		return "", usagef("task create got the subject twice (%q and --subject): give one", c.Args().First())
	case c.NArg() == 1:
		return c.Args().First(), nil
	case c.IsSet("subject"):
		return c.String("subject"), nil
	}
	return "", usagef("task create needs a subject: task create \"Write parser tests\" (or --subject TEXT)")
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
			status := c.String("status")
			if status != "" && !team.ValidStatus(status) {
				return usagef("--status %q is not a task status: use one of %s", status, strings.Join(team.Statuses, ", "))
			}
			s, err := openTasks(ctx, c, env)
			if err != nil {
				return err
			}
			all, byID, err := s.readAll()
			if err != nil {
				return err
			}
			var shown []*team.Task
			for _, t := range all {
				switch {
				case status != "" && t.Status != status:
				case c.IsSet("owner") && !t.OwnedBy(c.String("owner"), s.team.Name):
				case c.Bool("available") && !team.Available(t, byID):
				default:
					shown = append(shown, t)
				}
			}
			if c.Bool("json") {
				return s.printTasksJSON(shown, byID)
			}
			return s.printTable(shown, byID)
		},
	}
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
			id, err := taskID(c)
			if err != nil {
				return err
			}
			s, err := openTasks(ctx, c, env)
			if err != nil {
				return err
			}
			task, err := s.list.Get(id)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return s.printTask(task)
			}
			_, byID, err := s.readAll()
			if err != nil {
				return err
			}
			return s.printDetail(task, byID)
		},
	}
}

func taskClaimCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "claim",
		Usage:     "take a task: owner set, status in_progress; refused if taken, completed or blocked",
		ArgsUsage: "ID",
		Description: `Claims a task for a member atomically, under the task's lock: of many
claimants at the same moment exactly one wins. A task already owned by
someone else, completed, or waiting for an unfinished task is refused with
the reason and exit status 1. The new owner gets a task_assignment message.

    paneteam task claim --team review --owner alice 3`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "owner", Usage: "team member who takes the task (required)", Sources: ucli.EnvVars("PANETEAM_AGENT")},
			fromFlag(),
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			id, err := taskID(c)
			if err != nil {
				return err
			}
			if c.String("owner") == "" {
				return usagef("task claim needs --owner NAME (or PANETEAM_AGENT)")
			}
			s, err := openTasks(ctx, c, env)
			if err != nil {
				return err
			}
			owner, err := s.member(c.String("owner"))
			if err != nil {
				return err
			}
			task, err := s.list.Claim(ctx, id, owner)
			if err != nil {
				return err
			}
			if err := s.notifyAssignment(ctx, c, task, c.String("from")); err != nil {
				return err
			}
			return s.printChanged(c, task, "claimed")
		},
	}
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
			id, err := taskID(c)
			if err != nil {
				return err
			}
			s, err := openTasks(ctx, c, env)
			if err != nil {
				return err
			}
			if err := s.list.Delete(ctx, id); err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(env.Stdout, map[string]any{"id": id, "deleted": true})
			}
			_, err = fmt.Fprintf(env.Stdout, "task %s deleted\n", id)
			return err
		},
	}
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
			id, err := taskID(c)
			if err != nil {
				return err
			}
			s, err := openTasks(ctx, c, env)
			if err != nil {
				return err
			}
			task, err := s.list.Release(ctx, id)
			if err != nil {
				return err
			}
			return s.printChanged(c, task, "released")
		},
	}
}

// taskID is the one ID argument of a task subcommand, checked before it
// gets anywhere near a file name.
func taskID(c *ucli.Command) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("task %s takes one task ID, got %d arguments", c.Name, c.NArg())
	}
	id := c.Args().First()
	if err := team.CheckTaskID(id); err != nil {
		return "", usageError{err}
	}
	return id, nil
}

// idList reads a flag like "1,2, 3" as a list of task ids, checked.
func idList(c *ucli.Command, flag string) ([]string, error) {
	var ids []string
	for _, p := range strings.Split(c.String(flag), ",") {
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
