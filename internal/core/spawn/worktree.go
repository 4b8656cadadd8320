package spawn

import (
	"context"
	"errors"
	"fmt"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/team"
)

// giveWorktree is Request.Worktree: once the member's final name is known,
// it creates the member's git worktree in the repository holding its
// working folder, records it in paneteam's state folder (worktree.Give:
// the record, not the member row, is what every removal trusts), moves
// the member there (into the same subfolder, when the worktree has it)
// and notes worktreePath in config.json for the readers of the row. It
// returns what takes the worktree back if the spawn then fails; that
// removal is fail-closed like any other (worktree.Remove), so it never
// loses work.
func giveWorktree(ctx context.Context, r Request, m *team.Member) (drop func(context.Context) error, err error) {
	if r.Caller.Getenv == nil {
		return nil, &WorktreeError{Err: errors.New("no state folder to record it in (paneteam removes only worktrees it recorded)")}
	}
	state, err := provenance.StateDir(r.Caller.Getenv)
	if err != nil {
		return nil, &WorktreeError{Err: fmt.Errorf("find paneteam's state folder to record it: %w", err)}
	}
	recs := worktree.OpenRecords(state)
	wt, err := worktree.GiveVia(ctx, recs, m.Cwd, r.Team.Root, r.Team.Name, m.Name, 0, worktree.ViaSpawnPane)
	if wt == nil {
		return nil, &WorktreeError{Err: err}
	}
	if err != nil {
		// Made but not fully (.worktreeinclude files, or its record):
		// taken back, as any failed step.
		worktree.Tidy(context.WithoutCancel(ctx), recs, worktree.Record{Path: wt.Path}) //nolint:errcheck
		return nil, &WorktreeError{Err: err}
	}
	drop = func(ctx context.Context) error {
		if rec, _ := recs.Read(wt.Path); rec != nil {
			worktree.Tidy(ctx, recs, *rec) //nolint:errcheck // kept when it holds work
		}
		return nil
	}
	cwd := wt.Cwd
	_, err = r.Team.Update(ctx, r.Lock, func(cur *team.Config) error {
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

// noteWorktreePane writes the pid of m's pane process into its worktree
// record, so that 'paneteam worktrees' shows it running and refuses to
// remove its worktree meanwhile. Best effort: without it the record
// still says which worktree is m's.
func noteWorktreePane(r Request, m team.Member, pane backend.Pane) {
	if m.WorktreePath == "" || pane.Meta == nil || pane.Meta.PID <= 0 || r.Caller.Getenv == nil {
		return
	}
	state, err := provenance.StateDir(r.Caller.Getenv)
	if err != nil {
		return
	}
	recs := worktree.OpenRecords(state)
	rec, err := recs.Read(m.WorktreePath)
	if err != nil || rec == nil || rec.Team != r.Team.Name || rec.Member != m.Name {
		return
	}
	rec.PID = pane.Meta.PID
	rec.PIDStart, _ = proc.StartTime(rec.PID)
	recs.Write(*rec) //nolint:errcheck // best effort, see above
}

// WorktreeError is a spawn refused because its teammate's worktree could
// not be made.
type WorktreeError struct{ Err error }

func (e *WorktreeError) Error() string { return "give the teammate a worktree: " + e.Err.Error() }

func (e *WorktreeError) Unwrap() error { return e.Err }
