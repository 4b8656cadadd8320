package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"golang.org/x/sys/unix"
)

// KeptError says a worktree was kept, where it is and why: removal is
// fail-closed, so any doubt keeps it.
type KeptError struct {
	Path   string
	Reason string
	Err    error // the git error behind Reason, if any
	// Foreign: what is at Path is not the worktree paneteam made (a link,
	// another folder, a worktree git lists elsewhere), as opposed to
	// paneteam's own worktree kept for the work in it. Said even where a
	// kept worktree is not (the sweep after a reap).
	Foreign bool
	// unsaved: kept for commits no branch outside its removal holds.
	unsaved bool
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

func isForeign(err error) bool {
	var k *KeptError
	return errors.As(err, &k) && k.Foreign
}

// state is what removal found of a recorded worktree.
type state struct {
	rec    Record
	common string   // the repository's common git folder
	admin  string   // its folder there: <common>/worktrees/<id>
	id     identity // the folder that was checked
	tip    string   // the branch's commit, for a delete that fails if it moved
	head   string   // the commit its HEAD is at, as its status said
}

// Check reports whether Remove would remove r's worktree: nil if so (or
// if it is already gone), a *KeptError saying why not otherwise.
func Check(ctx context.Context, r Record) error {
	_, err := inspect(ctx, r, &view{repo: r.Repo}, false, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Remove deletes the worktree r records, and its branch, only if it is
// the folder paneteam made (Verify) and nothing would be lost: no
// uncommitted or untracked change (ignored files do not count, as for
// `git worktree remove`), no commit past r.Base that is on no other
// branch, tag or remote-tracking branch, not locked, and every git
// command succeeded. Otherwise it returns a *KeptError and leaves
// everything as it was. A worktree that no longer exists is success. The
// record itself is the caller's to forget.
func Remove(ctx context.Context, r Record) error {
	return RemoveAll(ctx, []Record{r})[0]
}

// Drop removes r's worktree and deletes its branch whatever they hold:
// the person asked for it (paneteam worktrees --remove --force). It is
// still only the folder paneteam made (Verify) that goes.
func Drop(ctx context.Context, r Record) error {
	st, err := inspect(ctx, r, &view{repo: r.Repo}, true, nil)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil {
		if err := st.remove(ctx); err != nil {
			return err
		}
		if err := st.deleteBranch(ctx); err != nil {
			return err
		}
	}
	pruneParents(r.Repo, r.Path)
	// A branch left without its folder goes too: the person said so.
	if tip, err := git(ctx, r.Repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch); err == nil && (st == nil || st.tip == "") {
		if _, err := git(ctx, r.Repo, "update-ref", "-d", "refs/heads/"+r.Branch, tip); err != nil {
			return fmt.Errorf("worktree %s removed, but its branch %s was not deleted: %w", r.Path, r.Branch, err)
		}
	}
	return nil
}

// inspect verifies r's worktree (against v, what was read of its
// repository) and, unless force, that removing it loses nothing when
// the branches going (r's own among them) are gone.
func inspect(ctx context.Context, r Record, v *view, force bool, going []string) (*state, error) {
	st, err := verify(ctx, r, v)
	if err != nil {
		return nil, err
	}
	if force {
		st.tip, _ = git(ctx, r.Repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch)
		return st, nil
	}
	if err := st.checkClean(ctx); err != nil {
		return nil, err
	}
	if err := st.checkPushed(ctx, going); err != nil {
		return nil, err
	}
	return st, nil
}

// remove takes away the folder verify checked, then git's note of it
// and its branch.
//
// Between the check and the removal the folder's name could be made to
// lead elsewhere (a teammate's process swapping in a link, or another
// folder), and `git worktree remove PATH` would follow it. So the
// removal never goes through the name again: the folder is first
// renamed aside, inside its parent opened with no link on the way (a
// rename moves the entry itself, a link as a link, never what it
// names); what now has the aside name must be the very folder that was
// checked (same device and inode), else it is put back and nothing is
// removed; and it is then deleted through folder descriptors, each entry
// relative to its parent, never following a link. git's own note of the
// worktree (<common>/worktrees/<id>, the one the folder's .git named) is
// deleted the same way, as git worktree remove does once the folder is
// gone. The branch is the caller's to delete after (deleteBranch,
// deleteBranches), only if it still points where it did when it was found
// to hold nothing unique.
func (st *state) remove(ctx context.Context) error {
	r := st.rec
	pfd, err := safefs.OpenDirBelow(r.Repo, filepath.Join(Dir, "worktrees", r.Team))
	if err != nil {
		return kept(r.Path, "cannot open the folder it is in", err)
	}
	defer unix.Close(pfd)
	aside := fmt.Sprintf(".%s.removing-%d-%d", r.Member, os.Getpid(), time.Now().UnixNano())
	if err := unix.Renameat(pfd, r.Member, pfd, aside); err != nil {
		return kept(r.Path, "cannot move it aside to remove it", err)
	}
	fd, err := unix.Openat(pfd, aside, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	var id identity
	if err == nil {
		id, err = identityOf(fd)
		unix.Close(fd)
	}
	if err != nil || id != st.id {
		if berr := unix.Renameat(pfd, aside, pfd, r.Member); berr != nil {
			return kept(r.Path, fmt.Sprintf("it was replaced while it was being removed, and what replaced it is now at %s (putting it back failed); nothing was removed",
				filepath.Join(filepath.Dir(r.Path), aside)), berr)
		}
		return kept(r.Path, "it was replaced (by another folder or a link) while it was being removed; nothing was removed", err)
	}
	if err := removeAllAt(pfd, aside); err != nil {
		return fmt.Errorf("remove the worktree %s (moved aside to %s to remove it): %w", r.Path, filepath.Join(filepath.Dir(r.Path), aside), err)
	}
	wfd, err := safefs.OpenDirBelow(st.common, "worktrees")
	if err == nil {
		err = removeAllAt(wfd, filepath.Base(st.admin))
		unix.Close(wfd)
	}
	if err != nil {
		return fmt.Errorf("worktree %s removed, but git still lists it (git worktree prune forgets it): %w", r.Path, err)
	}
	return nil
}

// deleteBranch deletes the branch of a removed worktree, only if it
// still points where it did when it was found to hold nothing unique.
func (st *state) deleteBranch(ctx context.Context) error {
	r := st.rec
	if st.tip == "" {
		return nil
	}
	if _, err := git(ctx, r.Repo, "update-ref", "-d", "refs/heads/"+r.Branch, st.tip); err != nil {
		return fmt.Errorf("worktree %s removed, but its branch %s was not deleted: %w", r.Path, r.Branch, err)
	}
	return nil
}

// checkClean keeps a tree with modified, staged or untracked files, or
// whose HEAD is no longer on its branch. It is the last read of the tree
// before it goes, so the commit its status says HEAD is at (on the
// branch: the branch's tip) is the one the rest of the removal holds to.
func (st *state) checkClean(ctx context.Context) error {
	r := st.rec
	out, err := gitRaw(ctx, r.Path, "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind", "--untracked-files=all")
	if err != nil {
		return kept(r.Path, "git status failed", err)
	}
	branch, head, changes := parseStatus(out)
	if branch != r.Branch {
		if branch == "" || branch == "(detached)" {
			branch = "a detached HEAD"
		}
		return foreign(r.Path, fmt.Sprintf("it is on %s, not on its branch %s: switch it back (git -C %s switch %s) or remove it yourself", branch, r.Branch, r.Path, r.Branch))
	}
	if len(changes) > 0 {
		return kept(r.Path, fmt.Sprintf("it has %d uncommitted change(s) (%s); commit and push them, or remove it yourself with git worktree remove --force",
			len(changes), summarize(changes)), nil)
	}
	if !isObjectName(head) {
		return kept(r.Path, fmt.Sprintf("git status did not say which commit it is at (%q)", head), nil)
	}
	st.head = head
	return nil
}

// parseStatus reads `git status --porcelain=v2 -z --branch`: the branch
// HEAD is on ("(detached)" when none), the commit it is at, and the paths
// of every change (a rename's original path, the field after it, is not
// counted again).
func parseStatus(out string) (branch, head string, changes []string) {
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "":
		case strings.HasPrefix(f, "# branch.head "):
			branch = strings.TrimPrefix(f, "# branch.head ")
		case strings.HasPrefix(f, "# branch.oid "):
			head = strings.TrimPrefix(f, "# branch.oid ")
		case strings.HasPrefix(f, "# "):
		default:
			// "1 XY sub mH mI mW hH hI path", "2 ... Xscore path" then
			// the original path, "u XY sub m1 m2 m3 mW h1 h2 h3 path",
			// "? path", "! path".
			n := map[byte]int{'1': 9, '2': 10, 'u': 11, '?': 2, '!': 2}[f[0]]
			parts := strings.SplitN(f, " ", max(n, 1))
			name := parts[len(parts)-1]
			if n == 0 || len(parts) < n {
				name = f
			}
			changes = append(changes, name)
			if f[0] == '2' {
				i++
			}
		}
	}
	return branch, head, changes
}

// isObjectName is a full SHA-1 or SHA-256 object name in hex.
func isObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// checkPushed keeps a tree whose branch has commits past its base that
// no other branch, tag or remote-tracking branch holds: removing the
// tree and its branch would lose them. Branches of going (those removed
// with it; its own when it goes alone) do not count as holding anything.
// A worktree made from a detached HEAD holds nothing of its own until it
// gets a commit past its base. A HEAD still at the base holds nothing
// past it: git need not be asked.
func (st *state) checkPushed(ctx context.Context, going []string) error {
	r := st.rec
	st.tip = st.head // checkClean found HEAD on the branch: the branch is at it
	if r.Base != "" && st.head == r.Base {
		return nil
	}
	if len(going) == 0 {
		going = []string{r.Branch}
	}
	args := []string{"rev-list", "--max-count=100", st.head, "refs/heads/" + r.Branch, "--not"}
	for _, b := range going {
		args = append(args, "--exclude="+b) // --exclude applies to the --branches after it
	}
	args = append(args, "--branches", "--tags", "--remotes")
	if r.Base != "" {
		args = append(args, r.Base)
	}
	out, err := git(ctx, r.Repo, args...)
	if err != nil {
		st.tip = ""
		return kept(r.Path, "git could not tell whether its commits are saved elsewhere", err)
	}
	if out != "" {
		st.tip = ""
		n := len(strings.Split(out, "\n"))
		return &KeptError{Path: r.Path, Reason: fmt.Sprintf("branch %s has %d commit(s) on no other branch, tag or remote; push or merge them first", r.Branch, n), unsaved: true}
	}
	return nil
}

func kept(path, reason string, err error) error {
	if err != nil {
		reason += ": " + err.Error()
	}
	return &KeptError{Path: path, Reason: reason, Err: err}
}

// summarize names up to three changed files.
func summarize(names []string) string {
	s := strings.Join(names[:min(len(names), 3)], ", ")
	if len(names) > 3 {
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
