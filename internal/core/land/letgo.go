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
	removed, kept := letGoAll(ctx, req.Lead, req.Records, res.After, []release{{Record: req.Record, Tip: res.Tip, Have: have, Known: known}})
	return removed[0], kept[0]
}

// release is one landed teammate whose worktree and branch may go.
type release struct {
	Record worktree.Record
	Tip    string // the tip that was landed
	Have   bool   // its folder was there when the land began
	Known  bool   // Tip is known to be held by the lead's branch
}

// letGoAll is letGo for several teammates landed onto after: their
// worktrees go together (worktree.RemoveAll, which reads the repository
// once for all of them and each worktree right before it goes). One
// answer per release, in order: whether it went, and why it was kept.
func letGoAll(ctx context.Context, l Lead, store worktree.Records, after string, rels []release) ([]bool, []error) {
	removed, keptErrs := make([]bool, len(rels)), make([]error, len(rels))
	var batch []worktree.Record
	var at []int
	for i, rel := range rels {
		r := rel.Record
		held := rel.Known
		if !held {
			var err error
			if held, err = holds(ctx, l.Dir, after, rel.Tip); err != nil {
				keptErrs[i] = err
				continue
			}
		}
		if !held {
			keptErrs[i] = &worktree.KeptError{Path: r.Path, Reason: "its branch has commits whose change is not on " + l.Branch}
			continue
		}
		if rel.Have {
			r.Base = rel.Tip // the landed tip counts as saved; nothing past it
			batch, at = append(batch, r), append(at, i)
		} else if strings.HasPrefix(r.Branch, worktree.BranchPrefix) {
			keptErrs[i] = dropBranch(ctx, l, r, rel.Tip)
		}
	}
	for j, err := range worktree.RemoveAll(ctx, batch) {
		keptErrs[at[j]] = err
	}
	for i, rel := range rels {
		if keptErrs[i] != nil {
			continue
		}
		if _, err := os.Lstat(rel.Record.Path); err == nil || !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		removed[i], keptErrs[i] = true, store.Forget(rel.Record.Path)
	}
	return removed, keptErrs
}

// dropBranch deletes the branch of a teammate whose folder went by hand,
// only if it is still at the tip that was landed, and checked out
// nowhere (git update-ref deletes a branch a working tree is on, and
// leaves that tree on no commit).
func dropBranch(ctx context.Context, l Lead, r worktree.Record, tip string) error {
	if at, err := checkedOutAt(ctx, l.Dir, r.Branch); err != nil {
		return &worktree.KeptError{Path: r.Path, Reason: "git could not tell whether its branch " + r.Branch + " is checked out elsewhere", Err: err}
	} else if at != "" {
		return &worktree.KeptError{Path: r.Path, Reason: "its branch " + r.Branch + " is checked out in " + at}
	}
	if _, err := git(ctx, l.Dir, "update-ref", "-d", "refs/heads/"+r.Branch, tip); err != nil {
		return fmt.Errorf("the branch %s was not deleted: %w", r.Branch, err)
	}
	return nil
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
