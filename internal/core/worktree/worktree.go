// Package worktree gives teammates their own git worktrees, at
// <repo>/.paneteam/worktrees/<team>/<name> on the branch
// paneteam/<team>/<name>, and removes them only when nothing would be lost:
// any uncommitted change, any commit that no other branch, tag or remote
// holds, or any git error keeps the worktree where it is.
package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Dir is the folder, under a repository's main working tree, that holds
// paneteam's worktrees; it is added to the repository's info/exclude so
// the main tree's `git status` stays quiet.
const Dir = ".paneteam"

// BranchPrefix starts every branch paneteam creates, and only branches
// with it are deleted on removal.
const BranchPrefix = "paneteam/"

// Worktree is one teammate's working tree.
type Worktree struct {
	Path   string // absolute
	Branch string // paneteam/<team>/<name>
	Repo   string // the repository's main working tree
	// Cwd is the folder of the worktree matching the one Create was
	// given (the same subfolder of its working tree), else Path.
	Cwd string
	// Base is the commit the worktree started from: the HEAD of the
	// working tree Create was given (a linked worktree's own HEAD).
	Base string
	// Copied lists the ignored files copied in from .worktreeinclude,
	// relative to the tree.
	Copied []string
	// Reused is true when the worktree existed already (Create is
	// idempotent), or its branch did (work left by an earlier teammate).
	Reused bool
}

// Compiled on first use: the {0,99} makes it cost more than a short
// command's whole start-up.
var slugRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`) })

// CheckSlug refuses a team or member name that could not be one path
// component and one branch name component: nothing may escape the
// worktrees folder ("..", "/", a leading dot or dash).
func CheckSlug(kind, s string) error {
	if !slugRE().MatchString(s) {
		return fmt.Errorf("%s name %q cannot name a worktree: use 1-100 letters, digits, '-' or '_', starting with a letter or digit", kind, s)
	}
	return nil
}

// Branch is the branch of a teammate's worktree.
func Branch(team, name string) string { return BranchPrefix + team + "/" + name }

// Path is where a teammate's worktree lives under a repository's main tree.
func Path(repo, team, name string) string {
	return filepath.Join(repo, Dir, "worktrees", team, name)
}

// Create makes (or finds) the worktree of member name of team in the
// repository holding dir. A branch left by an earlier teammate of that
// name is checked out again rather than replaced, so its work continues.
func Create(ctx context.Context, dir, team, name string) (*Worktree, error) {
	if err := CheckSlug("team", team); err != nil {
		return nil, err
	}
	if err := CheckSlug("member", name); err != nil {
		return nil, err
	}
	repo, common, err := mainTree(ctx, dir)
	if err != nil {
		return nil, err
	}
	wt := &Worktree{Path: Path(repo, team, name), Branch: Branch(team, name), Repo: repo}
	// The lead's own working tree (a linked one too) gives the commit
	// and the subfolder; the main tree only gives the place.
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, &NotRepoError{Dir: dir, Tree: true, Err: err}
	}
	wt.Base, err = git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return nil, fmt.Errorf("repository %s has no commits yet: commit once before giving teammates worktrees", top)
	}
	sub := subfolder(top, dir)
	defer func() {
		if wt.Cwd = wt.Path; sub != "" {
			if st, err := os.Stat(filepath.Join(wt.Path, sub)); err == nil && st.IsDir() {
				wt.Cwd = filepath.Join(wt.Path, sub)
			}
		}
	}()
	if err := refuseSymlinks(repo, wt.Path); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(wt.Path); err == nil {
		return reuse(ctx, wt)
	}
	if err := exclude(common); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(wt.Path), 0o755); err != nil {
		return nil, fmt.Errorf("create worktree folder: %w", err)
	}
	args := []string{"worktree", "add", "-b", wt.Branch, wt.Path, wt.Base}
	if _, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+wt.Branch); err == nil {
		args, wt.Reused = []string{"worktree", "add", wt.Path, wt.Branch}, true
	}
	if _, err := git(ctx, repo, args...); err != nil {
		return nil, fmt.Errorf("create worktree for %s: %w", name, err)
	}
	copied, err := copyIncluded(ctx, repo, wt.Path)
	wt.Copied = copied
	if err != nil {
		return wt, fmt.Errorf("worktree %s created, but copying .worktreeinclude files failed: %w", wt.Path, err)
	}
	return wt, nil
}

// subfolder is dir relative to the working tree top, "" when it is the
// top or not under it.
func subfolder(top, dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	if r, err := filepath.EvalSymlinks(top); err == nil {
		top = r
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return ""
	}
	return rel
}

// reuse accepts an existing path only if it is already this teammate's
// worktree on its branch.
func reuse(ctx context.Context, wt *Worktree) (*Worktree, error) {
	top, err := git(ctx, wt.Path, "rev-parse", "--show-toplevel")
	if err == nil && samePath(top, wt.Path) {
		branch, _ := git(ctx, wt.Path, "symbolic-ref", "-q", "--short", "HEAD")
		if branch == wt.Branch {
			wt.Reused = true
			return wt, nil
		}
	}
	return nil, fmt.Errorf("%s exists but is not the worktree of branch %s: move it away or choose another member name", wt.Path, wt.Branch)
}

// mainTree returns the main working tree of the repository holding dir
// (worktrees of worktrees all live under the main one) and its common git
// folder.
func mainTree(ctx context.Context, dir string) (repo, common string, err error) {
	common, err = git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", "", &NotRepoError{Dir: dir, Err: err}
	}
	list, err := git(ctx, dir, "worktree", "list", "--porcelain")
	if err != nil {
		return "", "", err
	}
	first, _, _ := strings.Cut(list, "\n")
	repo, ok := strings.CutPrefix(first, "worktree ")
	if !ok || strings.Contains(list, "\nbare") || strings.HasPrefix(list, "bare") {
		return "", "", fmt.Errorf("repository at %s has no main working tree (bare?): run from a normal checkout", common)
	}
	return repo, common, nil
}

// refuseSymlinks makes sure no folder between the repository and the
// worktree is a symlink, which could send the worktree elsewhere.
func refuseSymlinks(repo, path string) error {
	rel, err := filepath.Rel(repo, path)
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("worktree path %s is outside %s", path, repo)
	}
	cur := repo
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("check worktree path: %w", err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink: paneteam will not create worktrees through it; remove it first", cur)
		}
	}
	return nil
}

// samePath compares two paths after resolving symlinks (macOS's /tmp is
// /private/tmp, and git prints the resolved form).
func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// NotRepoError is a teammate's folder outside any git working tree (Tree)
// or repository, so it cannot be given a worktree.
type NotRepoError struct {
	Dir  string
	Tree bool // a working tree was needed (not only a repository)
	Err  error
}

// Words is the refusal with what needs the repository named as a front
// end names it (the command line's "--worktree").
func (e *NotRepoError) Words(needs string) string {
	what := "repository"
	if e.Tree {
		what = "working tree"
	}
	return fmt.Sprintf("%s is not in a git %s (%s needs one): %v", e.Dir, what, needs, e.Err)
}

func (e *NotRepoError) Error() string { return e.Words("a teammate's worktree") }

func (e *NotRepoError) Unwrap() error { return e.Err }
