package spawn

import (
	"context"
	"fmt"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// giveWorktree is Request.Worktree: once the member's final name is known,
// it creates the member's git worktree in the repository holding its
// working folder, moves the member there (into the same subfolder, when
// the worktree has it) and records worktreePath in config.json. It returns
// what takes the worktree back if the spawn then fails; that removal is
// fail-closed like any other (worktree.Remove), so it never loses work.
func giveWorktree(ctx context.Context, t team.Team, lock lockfile.Options, m *team.Member) (drop func(context.Context) error, err error) {
	wt, err := worktree.Create(ctx, m.Cwd, t.Name, m.Name)
	if err != nil {
		return nil, &WorktreeError{Err: err}
	}
	drop = func(ctx context.Context) error {
		worktree.Remove(ctx, wt.Path) //nolint:errcheck // kept when it holds work
		return nil
	}
	cwd := wt.Cwd
	_, err = t.Update(ctx, lock, func(cur *team.Config) error {
		row := memberByID(cur, m.AgentID)
		if row == nil {
			return fmt.Errorf("%s left the team while its worktree was made", m.Name)
		}
		row.WorktreePath, row.Cwd = wt.Path, cwd
		return nil
	})
	if err != nil {
		drop(context.WithoutCancel(ctx)) //nolint:errcheck
		return nil, err
	}
	m.WorktreePath, m.Cwd = wt.Path, cwd
	return drop, nil
}

// WorktreeError is a spawn refused because its teammate's worktree could
// not be made.
type WorktreeError struct{ Err error }

func (e *WorktreeError) Error() string { return "give the teammate a worktree: " + e.Err.Error() }

func (e *WorktreeError) Unwrap() error { return e.Err }
