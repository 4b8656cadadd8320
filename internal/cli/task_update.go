package cli

import (
	"context"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/team"
)

func taskUpdateCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "update",
		Usage:     "change a task's status, owner, text or dependencies",
		ArgsUsage: "ID",
		Description: `Changes the given fields of one task under its lock; fields not given, and
fields paneteam does not know, are kept as they are.

    paneteam task update --team review 3 --status completed
    paneteam task update --team review 4 --add-blocked-by 3
    paneteam task update --team review 5 --owner ""      # unassign (back to pending)

A new owner gets a task_assignment message. --add-blocked-by refuses a task
that does not exist and a dependency cycle.`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringFlag{Name: "status", Usage: "pending, in_progress or completed"},
			&ucli.StringFlag{Name: "owner", Usage: "team member who owns it (\"\" to unassign)"},
			&ucli.StringFlag{Name: "subject", Usage: "new title"},
			&ucli.StringFlag{Name: "description", Usage: "new description"},
			&ucli.StringFlag{Name: "active-form", Usage: "new present-continuous form"},
			&ucli.StringFlag{Name: "add-blocked-by", Usage: "comma-separated ids this task must also wait for"},
			fromFlag(),
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			id, err := taskID(c)
			if err != nil {
				return err
			}
			status := c.String("status")
			if c.IsSet("status") && !team.ValidStatus(status) {
				return usagef("--status %q is not a task status: use one of %s", status, strings.Join(team.Statuses, ", "))
			}
			if c.IsSet("subject") && strings.TrimSpace(c.String("subject")) == "" {
				return usagef("--subject is empty: give the new title")
			}
			addBlockedBy, err := idList(c, "add-blocked-by")
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
			if len(addBlockedBy) > 0 {
				if _, err := s.list.AddBlockedBy(ctx, id, addBlockedBy); err != nil {
					return err
				}
			}
			newOwner := false
			task, err := s.list.Update(ctx, id, func(t *team.Task) error {
				before := *t
				if c.IsSet("status") {
					t.Status = status
				}
				if c.IsSet("owner") {
					newOwner = owner != "" && !t.OwnedBy(owner, s.team.Name)
					t.Owner = owner
					// Unassigning is releasing, unless a status was given.
					if owner == "" && !c.IsSet("status") && t.Status == team.StatusInProgress {
						t.Status = team.StatusPending
					}
				}
				setIf(c, "subject", &t.Subject)
				setIf(c, "description", &t.Description)
				setIf(c, "active-form", &t.ActiveForm)
				if sameFields(before, *t) {
					return team.ErrNoChange
				}
				return nil
			})
			if err != nil {
				return err
			}
			if newOwner {
				if err := s.notifyAssignment(ctx, c, task, c.String("from")); err != nil {
					return err
				}
			}
			return s.printChanged(c, task, "updated")
		},
	}
}

func setIf(c *ucli.Command, flag string, dst *string) {
	if c.IsSet(flag) {
		*dst = c.String(flag)
	}
}

// sameFields compares what update may change.
func sameFields(a, b team.Task) bool {
	return a.Status == b.Status && a.Owner == b.Owner && a.Subject == b.Subject &&
		a.Description == b.Description && a.ActiveForm == b.ActiveForm
}

// printChanged reports a task a command changed: one line for people, the
// task object for scripts.
func (s *taskSession) printChanged(c *ucli.Command, t *team.Task, what string) error {
	if c.Bool("json") {
		return s.printTask(t)
	}
	owner := "owner " + t.Owner
	if t.Owner == "" {
		owner = "no owner"
	}
	_, err := fmt.Fprintf(s.env.Stdout, "task %s %s: %s, %s\n", t.ID, what, t.Status, owner)
	return err
}
