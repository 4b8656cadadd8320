package team

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/lockfile"
)

// ClaimReason says why a claim was refused.
type ClaimReason string

const (
	ClaimOwned     ClaimReason = "already_claimed"
	ClaimCompleted ClaimReason = "already_resolved"
	ClaimBlocked   ClaimReason = "blocked"
)

// ClaimError is a refused claim. The reasons are Claude Code's claimTask
// reasons.
type ClaimError struct {
	ID       string
	Reason   ClaimReason
	Owner    string   // ClaimOwned: who has it
	Blockers []string // ClaimBlocked: the unfinished tasks it waits for
}

func (e *ClaimError) Error() string {
	switch e.Reason {
	case ClaimOwned:
		return fmt.Sprintf("task %s is already claimed by %s: pick another available one, "+
			"or have %s release it", e.ID, e.Owner, e.Owner)
	case ClaimCompleted:
		return fmt.Sprintf("task %s is already completed: nothing to claim", e.ID)
	default:
		return fmt.Sprintf("task %s is blocked by unfinished task(s) %s: finish those first, "+
			"or pick another available one", e.ID, strings.Join(e.Blockers, ", "))
	}
}

// ErrNoOwner is a claim with no owner named.
var ErrNoOwner = errors.New("claim needs an owner (a team member)")

// CompletedError is a release of a completed task: reopening one is
// setting its status back to pending, a change of its own.
type CompletedError struct{ ID string }

func (e *CompletedError) Error() string {
	return fmt.Sprintf("task %s is completed; to reopen it, set its status back to pending", e.ID)
}

// Claim makes owner the owner of task id and marks it in_progress. Under
// the task's lock it re-reads the task and refuses, with a *ClaimError, a
// task owned by someone else, completed, or waiting for an unfinished
// task; so of many concurrent claimants exactly one wins. Claiming a task
// one already owns (by name or agent id) succeeds.
func (l *TaskList) Claim(ctx context.Context, id, owner string) (*Task, error) {
	if strings.TrimSpace(owner) == "" {
		return nil, ErrNoOwner
	}
	return l.Update(ctx, id, func(t *Task) error { return l.ClaimFor(t, owner) })
}

// ClaimFor is Claim's edit of a task already read under its lock, for a
// caller that needs to see the task before and after (inside its own
// Update): it makes owner the owner and the task in_progress, or returns
// a *ClaimError, or ErrNoChange for a task owner already works on.
func (l *TaskList) ClaimFor(t *Task, owner string) error {
	mine := t.OwnedBy(owner, l.Team)
	if t.Owner != "" && !mine {
		return &ClaimError{ID: t.ID, Reason: ClaimOwned, Owner: t.Owner}
	}
	if t.Status == StatusCompleted {
		return &ClaimError{ID: t.ID, Reason: ClaimCompleted}
	}
	// Other tasks are read without their locks, as Claude Code does: a
	// blocker completing meanwhile only makes this refusal stale.
	tasks, _, err := l.List()
	if err != nil {
		return err
	}
	if open := OpenBlockers(t, ByID(tasks)); len(open) > 0 {
		return &ClaimError{ID: t.ID, Reason: ClaimBlocked, Blockers: open}
	}
	if mine && t.Status == StatusInProgress {
		return ErrNoChange // keeps the owner as it was written
	}
	if !mine {
		t.Owner = owner
	}
	t.Status = StatusInProgress
	return nil
}

// Release puts task id back to pending with no owner. A completed task is
// left alone: reopening it is 'task update --status pending'.
func (l *TaskList) Release(ctx context.Context, id string) (*Task, error) {
	return l.Update(ctx, id, func(t *Task) error {
		if t.Status == StatusCompleted {
			return &CompletedError{ID: id}
		}
		if t.Owner == "" && t.Status == StatusPending {
			return ErrNoChange
		}
		unassign(t)
		return nil
	})
}

// unassign is Claude Code's unassignTeammateTasks edit: owner removed (the
// key disappears), status back to pending.
func unassign(t *Task) {
	t.Owner = ""
	t.Status = StatusPending
}

// ReleaseTasks returns every unfinished task owned by owner (a member name,
// or its agent id name@team) to pending with no owner, each under its own
// lock, and returns the released ids. Call it when a member leaves (shutdown
// approved, pane killed, cleanup), as Claude Code does. A task list that
// does not exist releases nothing; files that do not parse are left alone.
func ReleaseTasks(ctx context.Context, t Team, opts lockfile.Options, owner string) ([]string, error) {
	l := t.Tasks(opts)
	tasks, _, err := l.List()
	if err != nil {
		return nil, err
	}
	var released []string
	var errs []error
	for _, task := range tasks {
		if task.Status == StatusCompleted || !task.OwnedBy(owner, t.Name) {
			continue
		}
		changed := false
		_, err := l.Update(ctx, task.ID, func(cur *Task) error {
			// Re-checked under the lock: the owner may have finished it or
			// handed it on since the list was read.
			if cur.Status == StatusCompleted || !cur.OwnedBy(owner, t.Name) {
				return ErrNoChange
			}
			unassign(cur)
			changed = true
			return nil
		})
		switch {
		case errors.Is(err, ErrTaskNotFound):
		case err != nil:
			errs = append(errs, err)
		case changed:
			released = append(released, task.ID)
		}
	}
	if len(errs) > 0 {
		return released, fmt.Errorf("release %s's tasks: %w", owner, errors.Join(errs...))
	}
	return released, nil
}
