package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// RemoveAll removes the worktrees recs record, and their branches, each
// by Remove's rules, and returns one error per record, in order: nil
// when it was removed or was already gone, else why it was kept.
//
// What is of a repository as a whole (its common git folder and git's
// worktree list) is read once for all of its worktrees, when the first
// one that still exists is checked; the caller holds the repository's
// lock (Records.LockRepo) so no other paneteam changes them meanwhile.
// What is of one worktree is read for it right before it goes: the walk
// to its folder with no link on the way, its .git file and git's folder
// for it naming each other, its lock, and its status (nothing
// uncommitted, HEAD still on its branch, at the commit the branch's
// deletion then requires). Its folder is moved aside and checked to be
// the very folder that was checked before it is deleted, as Remove does.
//
// A branch whose commits only the branches going in the same call hold
// is kept in this pass (all of them may go), and checked again alone
// once the others went: so a removal of several keeps what removing them
// one at a time keeps. The branches of the removed worktrees are deleted
// together at the end, each only if still at the commit checked.
func RemoveAll(ctx context.Context, recs []Record) []error {
	errs := make([]error, len(recs))
	var order []string
	groups := map[string][]int{}
	for i, r := range recs {
		if _, ok := groups[r.Repo]; !ok {
			order = append(order, r.Repo)
		}
		groups[r.Repo] = append(groups[r.Repo], i)
	}
	for _, repo := range order {
		removeGroup(ctx, recs, groups[repo], errs)
	}
	return errs
}

// afterEach, when set (by tests), runs after each worktree of a removal
// of several went: the others may still be changed then, after the
// repository was read and before their own checks.
var afterEach func(Record)

// removeGroup removes the worktrees recs[idx] of one repository.
func removeGroup(ctx context.Context, recs []Record, idx []int, errs []error) {
	v := &view{repo: recs[idx[0]].Repo}
	var going []string
	for _, i := range idx {
		going = append(going, recs[i].Branch)
	}
	var removed []*state
	var at, again []int
	for _, i := range idx {
		st, err := inspect(ctx, recs[i], v, false, going)
		var k *KeptError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case errors.As(err, &k) && k.unsaved && len(idx) > 1:
			again = append(again, i)
			continue
		case err != nil:
			errs[i] = err
			continue
		}
		if errs[i] = st.remove(ctx); errs[i] == nil {
			removed, at = append(removed, st), append(at, i)
			if afterEach != nil {
				afterEach(recs[i])
			}
		}
	}
	for j, err := range deleteBranches(ctx, v.repo, removed) {
		errs[at[j]] = err
	}
	for _, st := range removed {
		pruneParents(st.rec.Repo, st.rec.Path)
	}
	for _, i := range again {
		errs[i] = RemoveAll(ctx, recs[i:i+1])[0]
	}
}

// deleteBranches deletes the branches of the removed worktrees sts in
// one git transaction, each only if still at the commit its removal
// checked; if the transaction fails (one moved), each is deleted alone,
// so one that moved keeps only itself. One error per state.
func deleteBranches(ctx context.Context, repo string, sts []*state) []error {
	errs := make([]error, len(sts))
	var in strings.Builder
	n := 0
	for _, st := range sts {
		if st.tip != "" {
			fmt.Fprintf(&in, "delete refs/heads/%s %s\n", st.rec.Branch, st.tip)
			n++
		}
	}
	if n == 0 {
		return errs
	}
	if n > 1 {
		if _, err := gitIn(ctx, repo, in.String(), "update-ref", "--stdin"); err == nil {
			return errs
		}
	}
	for i, st := range sts {
		errs[i] = st.deleteBranch(ctx)
	}
	return errs
}
