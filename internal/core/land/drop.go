package land

import (
	"context"
	"fmt"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// Unique are r's commits whose change is on none of the lead's branch
// (`git cherry`), as "<hash> <subject>" lines, oldest first.
func Unique(ctx context.Context, l Lead, r worktree.Record) ([]string, error) {
	tip, err := git(ctx, l.Dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch+"^{commit}")
	if err != nil {
		return nil, nil // no branch: nothing of its own
	}
	out, err := git(ctx, l.Dir, "cherry", "-v", l.Ref, tip)
	if err != nil {
		return nil, err
	}
	var unique []string
	for _, line := range lines(out) {
		if len(line) > 2 && line[0] == '+' {
			unique = append(unique, line[2:])
		}
	}
	return unique, nil
}

// Drop removes r's worktree and branch, the other attempt at a task
// that was landed: by worktree's fail-closed rules, so a commit of its
// own, a change not committed or a lock keeps it (a *worktree.KeptError),
// unless force. A teammate still running is refused.
func Drop(ctx context.Context, l Lead, store worktree.Records, r worktree.Record, force bool) error {
	if r.Running() {
		return StillRunning(r)
	}
	unlock, err := store.LockRepo(ctx, l.Common)
	if err != nil {
		return fmt.Errorf("wait for the repository's other lands and worktrees: %w", err)
	}
	defer unlock()
	if force {
		err = worktree.Drop(ctx, r)
	} else {
		err = worktree.Remove(ctx, r)
	}
	if err != nil {
		return err
	}
	return store.Forget(r.Path)
}
