package cli

import (
	"context"
	"fmt"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/team"
)

type taskCreateOptions struct {
	taskOptions
	Task team.NewTask
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
			o, err := readTaskCreateOptions(c, env)
			if err != nil {
				return err
			}
			return runTaskCreate(ctx, env, o)
		},
	}
}

func readTaskCreateOptions(c *ucli.Command, env Env) (taskCreateOptions, error) {
	subject, err := readSubject(c)
	if err != nil {
		return taskCreateOptions{}, err
	}
	blockedBy, err := readIDList(c, "blocked-by")
	if err != nil {
		return taskCreateOptions{}, err
	}
	return taskCreateOptions{taskOptions: readTaskOptions(c, env), Task: team.NewTask{
		Subject:     subject,
		Description: readFlags(c).String("description"),
		ActiveForm:  readFlags(c).String("active-form"),
		Owner:       readFlags(c).String("owner"),
		BlockedBy:   blockedBy,
	}}, nil
}

func runTaskCreate(ctx context.Context, env Env, o taskCreateOptions) error {
	b, err := o.board(ctx, env)
	if err != nil {
		return err
	}
	task, err := b.Create(ctx, o.Task)
	if err != nil {
		return taskError(err)
	}
	if o.JSON {
		return printTask(env, b, task)
	}
	_, err = fmt.Fprintln(env.Stdout, task.ID)
	return err
}

// readSubject is task create's subject: its one argument or --subject.
func readSubject(c *ucli.Command) (string, error) {
	switch {
	case c.NArg() > 1:
		return "", usagef("task create takes one SUBJECT, got %d arguments: quote it, such as task create \"Write parser tests\"", c.NArg())
	case c.NArg() == 1 && readFlags(c).IsSet("subject"):
		return "", usagef("task create got the subject twice (%q and --subject): give one", c.Args().First())
	case c.NArg() == 1:
		return c.Args().First(), nil
	case readFlags(c).IsSet("subject"):
		return readFlags(c).String("subject"), nil
	}
	return "", usagef("task create needs a subject: task create \"Write parser tests\" (or --subject TEXT)")
}
