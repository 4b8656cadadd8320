package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// What paneteam trusts of a teammate's worktree is its own record (in
// its state folder, which teammates are not given), never the member row
// in config.json nor anything inside the worktree, which the teammate
// writes: it may have replaced its folder with a link to another
// teammate's worktree or to one of the person's own, and git, asked
// about the path, would answer for what the link names. So Verify
// resolves nothing: it walks the recorded path from the repository with
// no link followed, and asks git from the repository's main tree.

// Verify checks that what is at r.Path is the worktree paneteam made for
// r: the path is where paneteam puts r's teammate's worktree, no step
// below the repository is a symbolic link, git lists a worktree at
// exactly that path on r.Branch, and its .git file names git's folder for
// it, which names the path back. Otherwise a *KeptError (Foreign) says
// what was found and what the person can do; a path that no longer
// exists is fs.ErrNotExist.
func Verify(ctx context.Context, r Record) error {
	_, err := verify(ctx, r, &view{repo: r.Repo})
	return err
}

// view is what a removal reads of a repository as a whole: its common
// git folder and git's list of its worktrees. It is read once, when the
// first worktree that still exists needs it, for every worktree of the
// repository that one removal checks (RemoveAll); what is particular to
// one worktree (its folder, its .git file, git's folder for it, its lock,
// its status) is read for each, right before it goes.
type view struct {
	repo      string
	read      bool
	common    string
	commonErr error
	list      string
	listErr   error
}

func (v *view) load(ctx context.Context) {
	if v.read {
		return
	}
	v.read = true
	v.common, v.commonErr = git(ctx, v.repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if v.commonErr == nil {
		v.list, v.listErr = git(ctx, v.repo, "worktree", "list", "--porcelain")
	}
}

func verify(ctx context.Context, r Record, v *view) (*state, error) {
	if err := r.inPlace(); err != nil {
		return nil, err
	}
	rel := filepath.Join(Dir, "worktrees", r.Team, r.Member)
	mode, err := safefs.LstatBelow(r.Repo, rel)
	var odd *safefs.OddError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case errors.As(err, &odd):
		return nil, foreign(r.Path, fmt.Sprintf("%s on the way to it is %s, not a folder: paneteam removes nothing through it (what it names is left alone); remove %s yourself if nothing of yours put it there",
			odd.Path, odd.Found, odd.Path))
	case err != nil:
		return nil, kept(r.Path, "cannot read it", err)
	case mode&fs.ModeSymlink != 0:
		to, _ := safefs.ReadlinkBelow(r.Repo, rel)
		return nil, foreign(r.Path, fmt.Sprintf("it is a symbolic link to %s, not the folder paneteam made: something replaced the worktree, and paneteam removes nothing through a link (what it names is left alone); delete the link yourself (rm %s), then git -C %s worktree prune forgets the worktree that was there",
			to, r.Path, r.Repo))
	case !mode.IsDir():
		return nil, foreign(r.Path, fmt.Sprintf("it is %s, not the folder paneteam made; remove it yourself if nothing of yours put it there", safefs.Kind(mode)))
	}
	fd, err := safefs.OpenDirBelow(r.Repo, rel)
	if err != nil {
		return nil, kept(r.Path, "cannot open it", err)
	}
	defer unix.Close(fd)
	st := &state{rec: r}
	if st.id, err = identityOf(fd); err != nil {
		return nil, kept(r.Path, "cannot read it", err)
	}
	v.load(ctx)
	if err := st.readGitFile(fd, v); err != nil {
		return nil, err
	}
	if err := st.readList(v); err != nil {
		return nil, err
	}
	return st, nil
}

// inPlace refuses a record that does not name where paneteam puts the
// worktree of its teammate, on its branch.
func (r Record) inPlace() error {
	clean := filepath.Clean(r.Path)
	if !filepath.IsAbs(r.Repo) || CheckSlug("team", r.Team) != nil || CheckSlug("member", r.Member) != nil ||
		clean != Path(r.Repo, r.Team, r.Member) || r.Branch != Branch(r.Team, r.Member) {
		return foreign(r.Path, fmt.Sprintf("its record (repository %q, branch %q) does not name where paneteam puts %s's worktree of team %s (<repository>/%s/worktrees/%s/%s on %s); leaving it alone",
			r.Repo, r.Branch, r.Member, r.Team, Dir, r.Team, r.Member, Branch(r.Team, r.Member)))
	}
	return nil
}

// readGitFile reads the .git file of the checked folder (through its
// descriptor) and requires it to name git's folder for a worktree of
// this repository whose gitdir names this path's .git back.
func (st *state) readGitFile(dirfd int, v *view) error {
	r := st.rec
	common := v.common
	if v.commonErr != nil {
		return kept(r.Path, "git could not describe its repository "+r.Repo, v.commonErr)
	}
	st.common = common
	b, err := readAt(dirfd, ".git")
	if err != nil {
		return foreign(r.Path, fmt.Sprintf("it has no readable .git file (%v): it is not a linked worktree of %s; remove it yourself if it is not needed", err, r.Repo))
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || !filepath.IsAbs(admin) || !samePath(filepath.Dir(admin), filepath.Join(common, "worktrees")) {
		return foreign(r.Path, fmt.Sprintf("its .git file does not name a worktree of %s (%q): it is not the worktree paneteam made; leaving it alone", r.Repo, strings.TrimSpace(string(b))))
	}
	st.admin = filepath.Join(common, "worktrees", filepath.Base(admin))
	back, err := safefs.OpenBelow(common, filepath.Join("worktrees", filepath.Base(admin), "gitdir"), os.O_RDONLY, 0, 0)
	var data []byte
	if err == nil {
		data, err = io.ReadAll(io.LimitReader(back, 4096))
		back.Close()
	}
	if want := filepath.Join(r.Path, ".git"); err != nil || strings.TrimSpace(string(data)) != want {
		return foreign(r.Path, fmt.Sprintf("git's folder for it (%s) names %q, not %s: it is not the worktree paneteam made there; leaving it alone (git -C %s worktree repair sets it right)",
			st.admin, strings.TrimSpace(string(data)), want, r.Repo))
	}
	return nil
}

// readList finds the worktree in `git worktree list --porcelain`, run in
// the main tree (never in the path: git would follow a link there), at
// exactly r.Path, on r.Branch and not locked. The list may be a little
// older than this worktree's turn in a removal of several, so the lock
// is also looked for again in git's folder for it (git worktree lock
// writes a file "locked" there), and the branch is asked again by the
// status each removal reads last (checkClean).
func (st *state) readList(v *view) error {
	r := st.rec
	list, err := v.list, v.listErr
	if err != nil {
		return kept(r.Path, "git could not list the worktrees of "+r.Repo, err)
	}
	if _, err := safefs.LstatBelow(st.common, filepath.Join("worktrees", filepath.Base(st.admin), "locked")); !errors.Is(err, fs.ErrNotExist) {
		if err != nil {
			return kept(r.Path, "cannot tell whether it is locked", err)
		}
		return kept(r.Path, "it is locked (git worktree unlock "+r.Path+" first if it is no longer needed)", nil)
	}
	for i, block := range strings.Split(list, "\n\n") {
		fields := map[string]string{}
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, " ")
			fields[k] = v
		}
		if i == 0 && !samePath(fields["worktree"], r.Repo) {
			return foreign(r.Path, fmt.Sprintf("its recorded repository %s is not a main working tree (git names %s): leaving it alone", r.Repo, fields["worktree"]))
		}
		if i == 0 || fields["worktree"] != r.Path {
			continue
		}
		if _, locked := fields["locked"]; locked {
			return kept(r.Path, "it is locked (git worktree unlock "+r.Path+" first if it is no longer needed)", nil)
		}
		if b := strings.TrimPrefix(fields["branch"], "refs/heads/"); b != r.Branch {
			if b == "" {
				b = "a detached HEAD"
			}
			return foreign(r.Path, fmt.Sprintf("it is on %s, not on its branch %s: switch it back (git -C %s switch %s) or remove it yourself", b, r.Branch, r.Path, r.Branch))
		}
		return nil
	}
	return foreign(r.Path, fmt.Sprintf("git does not list a worktree of %s at exactly this path: it is not the worktree paneteam made; leaving it alone", r.Repo))
}

// readAt reads the small regular file name of the folder dirfd, not
// following a link.
func readAt(dirfd int, name string) ([]byte, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	var buf bytes.Buffer
	_, err = io.Copy(&buf, io.LimitReader(f, 4096))
	return buf.Bytes(), err
}

func foreign(path, reason string) error {
	return &KeptError{Path: path, Reason: reason, Foreign: true}
}

// Owned refuses a path that is not where paneteam puts the worktree of
// member name of team (Path: <repo>/.paneteam/worktrees/<team>/<name>).
// It is a check of a member row's worktreePath for display only: nothing
// is removed on the strength of a row, which others write (Verify).
func Owned(path, team, name string) error {
	clean := filepath.Clean(path)
	repo := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(clean))))
	if !filepath.IsAbs(clean) || CheckSlug("team", team) != nil || CheckSlug("member", name) != nil || clean != Path(repo, team, name) {
		return &KeptError{Path: path, Foreign: true, Reason: fmt.Sprintf("it is not where paneteam puts %s's worktree of team %s (<repository>/%s/worktrees/%s/%s): config.json was changed by something else; leaving it alone", name, team, Dir, team, name)}
	}
	return nil
}
