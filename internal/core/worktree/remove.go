package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeptError says a worktree was kept, where it is and why: removal is
// fail-closed, so any doubt keeps it.
type KeptError struct {
	Path   string
	Reason string
	Err    error // the git error behind Reason, if any
}

func (e *KeptError) Error() string {
	return fmt.Sprintf("kept worktree %s: %s", e.Path, e.Reason)
}

func (e *KeptError) Unwrap() error { return e.Err }

// IsKept reports whether err says a worktree was kept.
func IsKept(err error) bool {
	var k *KeptError
	return errors.As(err, &k)
}

// state is what removal needs to know about a worktree.
type state struct {
	path   string // as git names it
	repo   string // the main working tree
	branch string // short name, "" when HEAD is detached
	tip    string // the branch's commit when it is paneteam's, for a safe delete
}

// Check reports whether Remove would remove the worktree at path: nil if
// so (or if it is already gone), a *KeptError saying why not otherwise.
func Check(ctx context.Context, path string) error {
	return CheckSince(ctx, path, "")
}

// CheckSince is Check counting the commit base (where the worktree
// started) and what it holds as saved: a worktree made from a detached
// HEAD holds nothing of its own until it gets a commit past base.
func CheckSince(ctx context.Context, path, base string) error {
	_, err := inspect(ctx, path, base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Remove deletes the worktree at path, and its branch when paneteam made
// it, only if nothing would be lost: no uncommitted or untracked change
// (ignored files do not count, as for `git worktree remove`), no commit
// that is on no other branch, tag or remote-tracking branch, not locked,
// and every git command succeeded. Otherwise it returns a *KeptError and
// leaves everything as it was. A path that no longer exists is success.
func Remove(ctx context.Context, path string) error {
	return RemoveSince(ctx, path, "")
}

// RemoveSince is Remove counting base as saved (CheckSince).
func RemoveSince(ctx context.Context, path, base string) error {
	st, err := inspect(ctx, path, base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// Without --force, git itself refuses a tree with changes: a second
	// check, made at the last moment.
	if _, err := git(ctx, st.repo, "worktree", "remove", st.path); err != nil {
		return kept(path, "git refused to remove it", err)
	}
	if st.tip != "" {
		// Deletes the branch only if it still points where it pointed
		// when it was found to hold nothing unique.
		if _, err := git(ctx, st.repo, "update-ref", "-d", "refs/heads/"+st.branch, st.tip); err != nil {
			return fmt.Errorf("worktree %s removed, but its branch %s was not deleted: %w", path, st.branch, err)
		}
	}
	pruneParents(st.repo, st.path)
	return nil
}

// inspect gathers the state of the worktree at path and returns a
// *KeptError for anything that makes removal unsafe.
func inspect(ctx context.Context, path, base string) (*state, error) {
	if _, err := os.Lstat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, kept(path, "cannot read it", err)
	}
	top, err := git(ctx, path, "rev-parse", "--show-toplevel")
	if err != nil || !samePath(top, path) {
		return nil, kept(path, "it is not the top folder of a git worktree; remove it by hand if it is not needed", err)
	}
	gitDir, err1 := git(ctx, path, "rev-parse", "--path-format=absolute", "--git-dir")
	common, err2 := git(ctx, path, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err := errors.Join(err1, err2); err != nil {
		return nil, kept(path, "git could not describe it", err)
	}
	if samePath(gitDir, common) {
		return nil, kept(path, "it is a repository's main working tree, not a linked worktree", nil)
	}
	st := &state{path: top}
	if err := st.readList(ctx, path); err != nil {
		return nil, err
	}
	if err := checkClean(ctx, path); err != nil {
		return nil, err
	}
	if err := st.checkPushed(ctx, base); err != nil {
		return nil, err
	}
	return st, nil
}

// readList finds the main tree and this worktree's branch and lock in
// `git worktree list --porcelain` (blocks of "key value" lines).
func (st *state) readList(ctx context.Context, path string) error {
	list, err := git(ctx, path, "worktree", "list", "--porcelain")
	if err != nil {
		return kept(path, "git could not list worktrees", err)
	}
	for i, block := range strings.Split(list, "\n\n") {
		fields := map[string]string{}
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, " ")
			fields[k] = v
		}
		if i == 0 {
			st.repo = fields["worktree"]
		}
		if !samePath(fields["worktree"], st.path) {
			continue
		}
		if _, locked := fields["locked"]; locked {
			return kept(path, "it is locked (git worktree unlock "+path+" first if it is no longer needed)", nil)
		}
		st.branch = strings.TrimPrefix(fields["branch"], "refs/heads/")
		return nil
	}
	return kept(path, "git does not list it as a worktree of its repository", nil)
}

// checkClean keeps a tree with modified, staged or untracked files.
func checkClean(ctx context.Context, path string) error {
	out, err := gitRaw(ctx, path, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return kept(path, "git status failed", err)
	}
	if changes := nulFields(out); len(changes) > 0 {
		return kept(path, fmt.Sprintf("it has %d uncommitted change(s) (%s); commit and push them, or remove it yourself with git worktree remove --force",
			len(changes), summarize(changes)), nil)
	}
	return nil
}

// checkPushed keeps a tree whose HEAD (or branch) has commits that no
// other branch, tag or remote-tracking branch holds: removing the tree and
// its branch would lose them.
func (st *state) checkPushed(ctx context.Context, base string) error {
	heads := []string{"HEAD"}
	var exclude []string
	if st.branch != "" {
		heads = append(heads, "refs/heads/"+st.branch)
		// --exclude applies to the --branches that follows it.
		exclude = []string{"--exclude=" + st.branch}
	}
	args := append([]string{"rev-list", "--max-count=100"}, heads...)
	args = append(append(append(args, "--not"), exclude...), "--branches", "--tags", "--remotes")
	if base != "" {
		args = append(args, base)
	}
	out, err := git(ctx, st.path, args...)
	if err != nil {
		return kept(st.path, "git could not tell whether its commits are saved elsewhere", err)
	}
	if out != "" {
		n := len(strings.Split(out, "\n"))
		where := "HEAD"
		if st.branch != "" {
			where = "branch " + st.branch
		}
		return kept(st.path, fmt.Sprintf("%s has %d commit(s) on no other branch, tag or remote; push or merge them first", where, n), nil)
	}
	if strings.HasPrefix(st.branch, BranchPrefix) {
		tip, err := git(ctx, st.path, "rev-parse", "--verify", "refs/heads/"+st.branch)
		if err != nil {
			return kept(st.path, "git could not read its branch", err)
		}
		st.tip = tip
	}
	return nil
}

func kept(path, reason string, err error) error {
	if err != nil {
		reason += ": " + err.Error()
	}
	return &KeptError{Path: path, Reason: reason, Err: err}
}

// summarize names up to three changed files from `status -z` entries
// ("XY path"); renames add an entry for the old name, which is fine here.
func summarize(entries []string) string {
	var names []string
	for _, e := range entries {
		if len(e) > 3 && e[2] == ' ' {
			e = e[3:]
		}
		names = append(names, e)
		if len(names) == 3 {
			break
		}
	}
	s := strings.Join(names, ", ")
	if len(entries) > 3 {
		s += ", ..."
	}
	return s
}

// pruneParents removes the team and worktrees folders (and .paneteam)
// once they are empty; a folder still in use stays.
func pruneParents(repo, path string) {
	stop := filepath.Join(repo, Dir)
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		rel, err := filepath.Rel(stop, dir)
		if err != nil || !(rel == "." || filepath.IsLocal(rel)) {
			return
		}
		if os.Remove(dir) != nil || rel == "." {
			return
		}
	}
}

// Owned refuses a path that is not where paneteam puts the worktree of
// member name of team (Path: <repo>/.paneteam/worktrees/<team>/<name>).
// A member's worktreePath comes from config.json, which a teammate (on
// another host too) can rewrite: no other worktree of the person's is
// ever removed through it.
func Owned(path, team, name string) error {
	clean := filepath.Clean(path)
	repo := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(clean))))
	if !filepath.IsAbs(clean) || CheckSlug("team", team) != nil || CheckSlug("member", name) != nil || clean != Path(repo, team, name) {
		return &KeptError{Path: path, Reason: fmt.Sprintf("it is not where paneteam puts %s's worktree of team %s (<repository>/%s/worktrees/%s/%s): config.json was changed by something else; leaving it alone", name, team, Dir, team, name)}
	}
	return nil
}
