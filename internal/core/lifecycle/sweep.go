package lifecycle

import (
	"context"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/worktree"
)

// SweptWorktree is a teammate's untouched worktree that Reap removed
// once its teammate had ended.
type SweptWorktree struct {
	Team   string `json:"team"`
	Member string `json:"member"`
	Path   string `json:"path"`
}

// sweepWorktrees finishes, after a reap, the worktree removals a lead's
// exit cut short: every worktree paneteam recorded whose teammate has
// ended and in which nothing would be lost (worktree.Sweep; one with work
// stays, silently). It is part of Reap so that every front end that reaps
// gets it. What it cannot remove is a warning (Backend.Warn), not the
// reap's failure: the worktree is kept, nothing is lost. A dry run, or a
// caller whose state folder cannot be found, sweeps nothing.
func (o Options) sweepWorktrees(ctx context.Context, ro ReapOptions, res *ReapResult) {
	if ro.DryRun || o.Backend.Getenv == nil {
		return
	}
	state, err := provenance.StateDir(o.Backend.Getenv)
	if err != nil {
		return
	}
	removed, errs := worktree.Sweep(ctx, worktree.OpenRecords(state))
	for _, r := range removed {
		res.Worktrees = append(res.Worktrees, SweptWorktree{Team: r.Team, Member: r.Member, Path: r.Path})
	}
	if o.Backend.Warn == nil {
		return
	}
	for _, e := range errs {
		o.Backend.Warn("%v", e)
	}
}
