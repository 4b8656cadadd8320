package land

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Lead is the working tree a land moves: the person's own, a linked
// worktree too, on a branch.
type Lead struct {
	Dir    string // its top folder
	Ref    string // refs/heads/<branch>; "" on a detached HEAD
	Branch string // the branch's short name
	Head   string // the commit it is at
	Common string // the repository's common git folder
}

// FindLead describes the working tree holding dir.
func FindLead(ctx context.Context, dir string) (Lead, error) {
	// One git for the four answers; when it fails, the steps one by one
	// say which is missing.
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel", "--path-format=absolute", "--git-common-dir", "HEAD^{commit}", "--symbolic-full-name", "HEAD")
	if f := lines(out); err == nil && len(f) == 4 {
		l := Lead{Dir: f[0], Common: f[1], Head: f[2]}
		if f[3] != "HEAD" {
			l.Ref, l.Branch = f[3], strings.TrimPrefix(f[3], "refs/heads/")
		}
		return l, nil
	}
	return findLeadSteps(ctx, dir)
}

func findLeadSteps(ctx context.Context, dir string) (Lead, error) {
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return Lead{}, fmt.Errorf("%s is not in a git working tree: %w", dir, err)
	}
	l := Lead{Dir: top}
	if l.Common, err = git(ctx, top, "rev-parse", "--path-format=absolute", "--git-common-dir"); err != nil {
		return Lead{}, err
	}
	if l.Head, err = git(ctx, top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return Lead{}, fmt.Errorf("the repository of %s has no commits yet: %w", top, err)
	}
	if ref, err := git(ctx, top, "symbolic-ref", "-q", "HEAD"); err == nil {
		l.Ref, l.Branch = ref, strings.TrimPrefix(ref, "refs/heads/")
	}
	return l, nil
}

// sameRepo reports whether the git folder common and the one of the
// worktree at path are one repository's.
func sameRepo(ctx context.Context, common, path string) bool {
	other, err := git(ctx, path, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return false
	}
	return samePath(common, other)
}

func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// noLocks makes a git that reads a working tree leave its index alone:
// `git status` and `git diff` otherwise refresh it under index.lock
// (git --no-optional-locks), and a teammate's own `git commit` at that
// moment fails on the lock.
const noLocks = "--no-optional-locks"

// dirtyPaths are the paths with uncommitted changes in the working tree
// dir, untracked files included (a land must not overwrite one).
func dirtyPaths(ctx context.Context, dir string) ([]string, error) {
	out, err := gitCmd{dir: dir, args: []string{noLocks, "status", "--porcelain=v1", "-z", "--untracked-files=all"}}.run(ctx)
	if err != nil {
		return nil, err
	}
	return statusPaths(out), nil
}

// overlap is the paths of dirty that changed touches (a dirty folder
// prefix counts for what is under it).
func overlap(dirty, changed []string) []string {
	set := map[string]bool{}
	for _, c := range changed {
		set[c] = true
	}
	var out []string
	for _, d := range dirty {
		if set[d] {
			out = append(out, d)
			continue
		}
		if strings.HasSuffix(d, "/") {
			for _, c := range changed {
				if strings.HasPrefix(c, d) {
					out = append(out, d)
					break
				}
			}
		}
	}
	return out
}
