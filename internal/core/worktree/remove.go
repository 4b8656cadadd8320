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
}

// Check reports whether Remove would remove r's worktree: nil if so (or
// if it is already gone), a *KeptError saying why not otherwise.
func Check(ctx context.Context, r Record) error {
	_, err := inspect(ctx, r, false)
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
	st, err := inspect(ctx, r, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return st.remove(ctx)
}

// Drop removes r's worktree and deletes its branch whatever they hold:
// the person asked for it (paneteam worktrees --remove --force). It is
// still only the folder paneteam made (Verify) that goes.
func Drop(ctx context.Context, r Record) error {
	st, err := inspect(ctx, r, true)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil {
		if err := st.remove(ctx); err != nil {
			return err
		}
	} else {
		pruneParents(r.Repo, r.Path)
	}
	// A branch left without its folder goes too: the person said so.
	if tip, err := git(ctx, r.Repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch); err == nil && (st == nil || st.tip == "") {
		if _, err := git(ctx, r.Repo, "update-ref", "-d", "refs/heads/"+r.Branch, tip); err != nil {
			return fmt.Errorf("worktree %s removed, but its branch %s was not deleted: %w", r.Path, r.Branch, err)
		}
	}
	return nil
}

// inspect verifies r's worktree and, unless force, that removing it
// loses nothing.
func inspect(ctx context.Context, r Record, force bool) (*state, error) {
	st, err := verify(ctx, r)
	if err != nil {
		return nil, err
	}
	if force {
		st.tip, _ = git(ctx, r.Repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch)
		return st, nil
	}
	if err := checkClean(ctx, r.Path); err != nil {
		return nil, err
	}
	if err := st.checkPushed(ctx); err != nil {
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
// gone, and the branch only if it still points where it did when it was
// found to hold nothing unique.
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
	if st.tip != "" {
		if _, err := git(ctx, r.Repo, "update-ref", "-d", "refs/heads/"+r.Branch, st.tip); err != nil {
			return fmt.Errorf("worktree %s removed, but its branch %s was not deleted: %w", r.Path, r.Branch, err)
		}
	}
	pruneParents(r.Repo, r.Path)
	return nil
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

// checkPushed keeps a tree whose branch has commits past its base that
// no other branch, tag or remote-tracking branch holds: removing the
// tree and its branch would lose them. A worktree made from a detached
// HEAD holds nothing of its own until it gets a commit past its base.
func (st *state) checkPushed(ctx context.Context) error {
	r := st.rec
	args := []string{"rev-list", "--max-count=100", "HEAD", "refs/heads/" + r.Branch,
		"--not", "--exclude=" + r.Branch, "--branches", "--tags", "--remotes"} // --exclude applies to the --branches after it
	if r.Base != "" {
		args = append(args, r.Base)
	}
	out, err := git(ctx, r.Path, args...)
	if err != nil {
		return kept(r.Path, "git could not tell whether its commits are saved elsewhere", err)
	}
	if out != "" {
		n := len(strings.Split(out, "\n"))
		return kept(r.Path, fmt.Sprintf("branch %s has %d commit(s) on no other branch, tag or remote; push or merge them first", r.Branch, n), nil)
	}
	tip, err := git(ctx, r.Repo, "rev-parse", "--verify", "refs/heads/"+r.Branch)
	if err != nil {
		return kept(r.Path, "git could not read its branch", err)
	}
	st.tip = tip
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
