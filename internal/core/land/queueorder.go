package land

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// queueOrder is the teammates with work, oldest last commit first; one
// still running or with uncommitted files is marked and skipped.
//
// It asks git what review's describe asks, less what the queue does not
// show (lines added and removed), and in few commands: one for-each-ref
// gives every branch's tip and date, one for-each-ref --merged per base
// commit which branches have no commit past it (what `rev-list --count
// BASE..TIP` = 0 says), the worktree list (from sweepScratch) which
// worktrees are of the lead's repository, and one status per worktree
// its uncommitted files.
func queueOrder(ctx context.Context, l Lead, recs []worktree.Record, listed []string) []QueueItem {
	type cand struct {
		r     worktree.Record
		gone  bool
		tip   string
		at    int64
		ahead bool
	}
	var cs []*cand
	for _, r := range recs {
		_, statErr := os.Lstat(r.Path)
		c := &cand{r: r, gone: statErr != nil}
		if !c.gone && !listedPath(listed, r.Path) && !sameRepo(ctx, l.Common, r.Path) {
			continue
		}
		if c.gone && !samePath(r.Repo, l.Dir) && !sameRepo(ctx, l.Common, r.Repo) {
			continue
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil
	}
	refs := make([]string, len(cs))
	for i, c := range cs {
		refs[i] = "refs/heads/" + c.r.Branch
	}
	tips := map[string][2]string{} // ref -> tip, committer date
	out, _ := git(ctx, l.Dir, append([]string{"for-each-ref", "--format=%(objecttype) %(objectname) %(committerdate:unix) %(refname)"}, refs...)...)
	for _, line := range lines(out) {
		f := strings.SplitN(line, " ", 4)
		if len(f) == 4 && f[0] == "commit" {
			tips[f[3]] = [2]string{f[1], f[2]}
		}
	}
	// Which branches are merged into (have nothing past) their base.
	byBase := map[string][]string{}
	for i, c := range cs {
		if _, ok := tips[refs[i]]; !ok {
			continue // its branch is gone
		}
		base := c.r.Base
		if base == "" {
			base, _ = git(ctx, l.Dir, "merge-base", l.Head, tips[refs[i]][0])
		}
		byBase[base] = append(byBase[base], refs[i])
	}
	noneAhead := map[string]bool{}
	for base, rs := range byBase {
		out, err := git(ctx, l.Dir, append([]string{"for-each-ref", "--format=%(refname)", "--merged=" + base}, rs...)...)
		if err != nil {
			continue // git could not tell: counted as work, as review counts it
		}
		for _, r := range lines(out) {
			noneAhead[r] = true
		}
	}
	dirty := statuses(ctx, cs, func(c *cand) string {
		if _, ok := tips["refs/heads/"+c.r.Branch]; !ok || c.gone {
			return ""
		}
		return c.r.Path
	})
	type dated struct {
		QueueItem
		at int64
	}
	var ds []dated
	for i, c := range cs {
		t, ok := tips[refs[i]]
		if !ok {
			continue
		}
		r := c.r
		it := QueueItem{Record: r, Name: r.Member, Team: r.Team, Branch: r.Branch, Tip: t[0], Files: []string{}}
		dirty := dirty[i]
		if noneAhead[refs[i]] && len(dirty) == 0 {
			continue // no work
		}
		switch {
		case r.Running():
			it.Outcome = StillRuns
		case len(dirty) > 0:
			it.Outcome, it.Files = Uncommitted, dirty
		}
		at, _ := strconv.ParseInt(t[1], 10, 64)
		ds = append(ds, dated{it, at})
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].at < ds[j].at })
	items := make([]QueueItem, len(ds))
	for i, d := range ds {
		items[i] = d.QueueItem
	}
	return items
}

// listedPath reports whether path is one of the worktrees git lists.
func listedPath(listed []string, path string) bool {
	for _, p := range listed {
		if filepath.Clean(p) == filepath.Clean(path) {
			return true
		}
	}
	return false
}

// statusWorkers is how many worktrees' git status run at once: each
// reads its own worktree and index, and a few at once make the queue's
// start wait for the slowest rather than for their sum.
const statusWorkers = 4

// statuses are the uncommitted files of each of items' worktrees (path
// tells where, "" for none), nil where git status failed (counted as
// none, as review counts it).
func statuses[T any](ctx context.Context, items []T, path func(T) string) [][]string {
	out := make([][]string, len(items))
	sem := make(chan struct{}, statusWorkers)
	var wg sync.WaitGroup
	for i, it := range items {
		p := path(it)
		if p == "" {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], _ = dirtyPaths(ctx, p)
		}()
	}
	wg.Wait()
	return out
}
