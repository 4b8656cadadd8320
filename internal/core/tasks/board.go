// Package tasks is the one rule set for changing a team's task list,
// whichever front end acts: 'paneteam task', the MCP server's claim_task
// and update_task, and anything added later. It decides what Claude Code's
// own TaskUpdate decides (docs/PROTOCOL.md §12):
//
//   - a teammate that sets an unowned task in_progress becomes its owner;
//   - every change of owner sends the new owner a task_assignment from the
//     member acting, itself included;
//   - setting a status never clears the owner.
//
// The files themselves (ids, locks, claim refusals, dependencies) are the
// team package's; the notice goes out through post, signed where the
// actor speaks as the lead.
package tasks

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Board is a team's task list as one member acts on it.
type Board struct {
	Team   team.Team
	Config *team.Config
	Lock   lockfile.Options
	// By is who acts: a member's name as the config spells it, team-lead
	// for the lead, or the person's own name in a team Claude Code leads
	// (post.Caller.Sender chooses it). The notices are from By.
	By string
	// Caller posts the notices: its environment decides whether they are
	// signed as the lead.
	Caller post.Caller
	// Now stamps the notices; nil is time.Now.
	Now func() time.Time
}

// List is the team's task files.
func (b *Board) List() *team.TaskList { return b.Team.Tasks(b.Lock) }

func (b *Board) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Member resolves a name someone gave for an owner to the member's name
// as the config spells it; a member's agent id (name@team) is accepted
// too, and "" stays "".
func (b *Board) Member(name string) (string, error) {
	if name == "" {
		return "", nil
	}
	if m := b.Config.Member(name); m != nil {
		return m.Name, nil
	}
	if n, tm, ok := strings.Cut(name, "@"); ok && strings.EqualFold(tm, b.Team.Name) {
		if m := b.Config.Member(n); m != nil {
			return m.Name, nil
		}
	}
	return "", &NotMemberError{Name: name, Team: b.Team.Name, Members: b.Config.MemberNames()}
}

// NotMemberError is an owner that is not a member of the team.
type NotMemberError struct {
	Name, Team string
	Members    []string
}

func (e *NotMemberError) Error() string {
	return fmt.Sprintf("%q is not a member of team %s (members: %s): give one of those names",
		e.Name, e.Team, strings.Join(e.Members, ", "))
}

// teammate reports whether By is one of the team's teammates: a member
// that is not the lead. Only a teammate becomes the owner of what it
// starts, as in Claude Code, where the lead has no agent name of its own.
func (b *Board) teammate() bool {
	return b.By != "" && !team.IsLeadSender(b.By) && b.Config.Member(b.By) != nil
}

// NoticeError is a change that was made, whose task_assignment notice
// did not reach the new owner.
type NoticeError struct {
	Task *team.Task
	Err  error
}

func (e *NoticeError) Error() string {
	return fmt.Sprintf("task %s is assigned to %s, but the task_assignment message was not delivered: %v",
		e.Task.ID, e.Task.Owner, e.Err)
}

func (e *NoticeError) Unwrap() error { return e.Err }

// notify sends t's owner the task_assignment Claude Code sends on a change
// of owner: from By, in By's colour, with the task's subject and
// description as they now are.
func (b *Board) notify(ctx context.Context, t *team.Task) error {
	p, err := b.Caller.Open(b.Team, b.Config, b.Lock, b.By, []string{t.Owner}, "")
	if err != nil {
		return &NoticeError{Task: t, Err: err}
	}
	now := mailbox.Timestamp(b.now())
	text, err := mailbox.Text(mailbox.TaskAssignment{
		Type:        mailbox.TypeTaskAssignment,
		TaskID:      t.ID,
		Subject:     t.Subject,
		Description: t.Description,
		AssignedBy:  b.By,
		Timestamp:   now,
	})
	if err != nil {
		return &NoticeError{Task: t, Err: err}
	}
	if _, err := p.Send(ctx, t.Owner, mailbox.Message{Text: text, Timestamp: now}); err != nil {
		return &NoticeError{Task: t, Err: err}
	}
	return nil
}
