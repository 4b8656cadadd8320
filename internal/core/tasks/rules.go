package tasks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/team"
)

// Change is what an update sets; nil fields stay as they are, as do the
// fields paneteam does not know.
type Change struct {
	Status      *string
	Owner       *string // "" unassigns
	Subject     *string
	Description *string
	ActiveForm  *string
	// Note is kept in the task's metadata under "note", where Claude Code
	// keeps a task's free-form extras; its other keys stay.
	Note *string
	// AddBlockedBy makes the task wait for these tasks too.
	AddBlockedBy []string
}

// ErrNothingToChange is an update that names no field at all.
var ErrNothingToChange = errors.New("nothing to change")

// check refuses what no task file may hold, before any file is touched.
func (c Change) check() error {
	if c.Status == nil && c.Owner == nil && c.Subject == nil && c.Description == nil &&
		c.ActiveForm == nil && c.Note == nil && len(c.AddBlockedBy) == 0 {
		return ErrNothingToChange
	}
	if c.Status != nil && !team.ValidStatus(*c.Status) {
		return &StatusError{Status: *c.Status}
	}
	if c.Subject != nil && strings.TrimSpace(*c.Subject) == "" {
		return errors.New("the new subject is empty: give the new title")
	}
	return nil
}

// StatusError is a status no task may have.
type StatusError struct{ Status string }

func (e *StatusError) Error() string {
	return fmt.Sprintf("%q is not a task status: use one of %s", e.Status, strings.Join(team.Statuses, ", "))
}

// apply makes c on t, read under its lock, by a teammate or not, and
// reports whether anything changed. It is the whole of the update rule.
func (c Change) apply(t *team.Task, teamName, by string, teammate bool) (bool, error) {
	before := *t
	if c.Owner != nil && !sameOwner(t.Owner, *c.Owner, teamName) {
		t.Owner = *c.Owner
	}
	if c.Status != nil {
		t.Status = *c.Status
	}
	switch {
	case c.Status != nil && *c.Status == team.StatusInProgress && c.Owner == nil && before.Owner == "" && teammate:
		// Claude Code: a teammate that starts an unowned task owns it.
		t.Owner = by
	case c.Owner != nil && *c.Owner == "" && c.Status == nil && t.Status == team.StatusInProgress:
		// Unassigning a task in progress gives it back, as a release
		// does, unless a status was given with it.
		t.Status = team.StatusPending
	}
	set(&t.Subject, c.Subject)
	set(&t.Description, c.Description)
	set(&t.ActiveForm, c.ActiveForm)
	noteChanged := false
	if c.Note != nil && NoteOf(t) != *c.Note {
		md, err := setKey(t.Metadata, noteKey, *c.Note)
		if err != nil {
			return false, fmt.Errorf("task %s's metadata: %w", t.ID, err)
		}
		t.Metadata, noteChanged = md, true
	}
	return noteChanged || t.Status != before.Status || t.Owner != before.Owner || t.Subject != before.Subject ||
		t.Description != before.Description || t.ActiveForm != before.ActiveForm, nil
}

// sameOwner: Claude Code writes a member's name or its agent id.
func sameOwner(cur, next, teamName string) bool {
	if cur == "" || next == "" {
		return cur == next
	}
	return (&team.Task{Owner: cur}).OwnedBy(next, teamName)
}

func set(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

// newOwner is whom a change of t from before must notify: the new owner,
// when there is one and it is not who owned it before.
func newOwner(before string, t *team.Task, teamName string) string {
	if t.Owner == "" || sameOwner(before, t.Owner, teamName) {
		return ""
	}
	return t.Owner
}

// Update makes c on task id under its lock, by the rules of apply, and
// sends a new owner its notice. A change that changes nothing writes
// nothing and returns the task as it is. The task is returned with a
// *NoticeError when only the notice failed.
func (b *Board) Update(ctx context.Context, id string, c Change) (*team.Task, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.Owner != nil {
		owner, err := b.Member(*c.Owner)
		if err != nil {
			return nil, err
		}
		c.Owner = &owner
	}
	list := b.List()
	if len(c.AddBlockedBy) > 0 {
		if _, err := list.AddBlockedBy(ctx, id, c.AddBlockedBy); err != nil {
			return nil, err
		}
	}
	teammate := b.teammate()
	return b.edit(ctx, id, func(t *team.Task) error {
		changed, err := c.apply(t, b.Team.Name, b.By, teammate)
		if err != nil {
			return err
		}
		if !changed {
			return team.ErrNoChange
		}
		return nil
	})
}

// edit applies fn to task id under its lock and, when that changed the
// owner, sends the new owner its notice. The task is returned with a
// *NoticeError when only the notice failed.
func (b *Board) edit(ctx context.Context, id string, fn func(*team.Task) error) (*team.Task, error) {
	var notify string
	t, err := b.List().Update(ctx, id, func(t *team.Task) error {
		before := t.Owner
		if err := fn(t); err != nil {
			return err
		}
		notify = newOwner(before, t, b.Team.Name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if notify != "" {
		if err := b.notify(ctx, t); err != nil {
			return t, err
		}
	}
	return t, nil
}

// Claim makes owner the owner of task id, in_progress, refusing with a
// *team.ClaimError a task someone else owns, a completed one and one
// that waits for unfinished tasks; of many claimants at once exactly one
// wins. A new owner gets its notice, as on any change of owner.
func (b *Board) Claim(ctx context.Context, id, owner string) (*team.Task, error) {
	owner, err := b.Member(owner)
	if err != nil {
		return nil, err
	}
	if owner == "" {
		return nil, errors.New("claim needs an owner: a member of the team")
	}
	list := b.List()
	return b.edit(ctx, id, func(t *team.Task) error { return list.ClaimFor(t, owner) })
}

// Create adds a task (team.TaskList.Create: the next id, under the list
// lock). One created with an owner starts in_progress, and the owner gets
// its notice.
func (b *Board) Create(ctx context.Context, nt team.NewTask) (*team.Task, error) {
	owner, err := b.Member(nt.Owner)
	if err != nil {
		return nil, err
	}
	nt.Owner = owner
	t, err := b.List().Create(ctx, nt)
	if err != nil {
		return nil, err
	}
	if t.Owner != "" {
		if err := b.notify(ctx, t); err != nil {
			return t, err
		}
	}
	return t, nil
}

// Release gives task id back: pending, no owner. Nobody is notified, as
// when Claude Code releases the tasks of a teammate that leaves.
func (b *Board) Release(ctx context.Context, id string) (*team.Task, error) {
	return b.List().Release(ctx, id)
}

// Delete removes task id; its id is never handed out again.
func (b *Board) Delete(ctx context.Context, id string) error {
	return b.List().Delete(ctx, id)
}
