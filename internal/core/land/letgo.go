package land

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// letGo removes the landed teammate's worktree and branch by worktree's
// fail-closed rules, once every commit of the branch's change is on the
// lead's branch (as `git cherry` sees it). Counting the landed tip as
// saved lets a squash or a rebase go, and nothing made after it: a commit
// past the tip, or a file changed since, keeps the worktree. The
// repository's lock is held by the caller. known says the caller knows
// res.Tip is an ancestor of res.After (the queue's merges), which holds
// it without asking git.
func letGo(ctx context.Context, req Request, res *Result, have, known bool) (bool, error) {
	r, l := req.Record, req.Lead
	held := known
	if !held {
		var err error
		if held, err = holds(ctx, l.Dir, res.After, res.Tip); err != nil {
			return false, err
		}
	}
	if !held {
		return false, &worktree.KeptError{Path: r.Path, Reason: "its branch has commits whose change is not on " + l.Branch}
	}
	if have {
		held := r
		held.Base = res.Tip // the landed tip counts as saved; nothing past it
		if err := worktree.Remove(ctx, held); err != nil {
			return false, err
		}
	} else if strings.HasPrefix(r.Branch, worktree.BranchPrefix) {
		// The folder went by hand; the branch goes only if it is still
		// at the tip that was landed, and checked out nowhere (git
		// update-ref deletes a branch a working tree is on, and leaves
		// that tree on no commit).
		if at, err := checkedOutAt(ctx, l.Dir, r.Branch); err != nil {
			return false, &worktree.KeptError{Path: r.Path, Reason: "git could not tell whether its branch " + r.Branch + " is checked out elsewhere", Err: err}
		} else if at != "" {
			return false, &worktree.KeptError{Path: r.Path, Reason: "its branch " + r.Branch + " is checked out in " + at}
		}
		if _, err := git(ctx, l.Dir, "update-ref", "-d", "refs/heads/"+r.Branch, res.Tip); err != nil {
			return false, fmt.Errorf("the branch %s was not deleted: %w", r.Branch, err)
		}
	}
	if _, err := os.Lstat(r.Path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return true, req.Records.Forget(r.Path)
}

// checkedOutAt is the working tree that has branch checked out, "" for
// none.
func checkedOutAt(ctx context.Context, dir, branch string) (string, error) {
	out, err := git(ctx, dir, "worktree", "list", "--porcelain")
	if err != nil {
		return "", err
	}
	at := ""
	for _, l := range lines(out) {
		if p, ok := strings.CutPrefix(l, "worktree "); ok {
			at = p
		} else if l == "branch refs/heads/"+branch {
			return at, nil
		}
	}
	return "", nil
}
