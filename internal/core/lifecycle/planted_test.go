package lifecycle

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// linkAttack is a team whose teammate alice, given a worktree by
// spawn-pane --worktree, replaced its folder with a link to target: a
// running teammate's worktree of another team, or one of the person's own
// linked worktrees with an ignored file.
type linkAttack struct {
	o      Options
	tm     team.Team
	repo   string
	alice  string // alice's worktree path, now a link
	target string
	keep   string // a file of target's that must survive
}

func plantLink(t *testing.T, kind string) linkAttack {
	t.Helper()
	ctx := context.Background()
	state, repo := t.TempDir(), testutil.GitRepo(t)
	o := opts()
	getenv := o.Backend.Getenv
	o.Backend.Getenv = func(k string) string {
		if k == "PANETEAM_STATE_DIR" {
			return state
		}
		return getenv(k)
	}
	tm := newTeam(t)
	addMembers(t, tm, "alice")
	recs := worktree.OpenRecords(state)
	wt, err := worktree.Give(ctx, recs, repo, tm.Root, tm.Name, "alice", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Update(ctx, o.Lock, func(c *team.Config) error {
		c.Member("alice").WorktreePath = wt.Path
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	a := linkAttack{o: o, tm: tm, repo: repo, alice: wt.Path}
	switch kind {
	case "teammate":
		bob, err := worktree.Give(ctx, recs, repo, tm.Root, "other", "bob", os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		a.target = bob.Path
		a.keep = filepath.Join(bob.Path, ".git")
	case "own":
		a.target = filepath.Join(t.TempDir(), "feature")
		git(t, repo, "worktree", "add", "-q", "-b", "feature", a.target)
		os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".env\n"), 0o644)
		os.WriteFile(filepath.Join(a.target, ".gitignore"), []byte(".env\n"), 0o644)
		git(t, a.target, "add", ".gitignore")
		git(t, a.target, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "ignore")
		git(t, repo, "branch", "-q", "saved", "feature") // its commit is saved elsewhere: git sees nothing to lose
		os.WriteFile(filepath.Join(a.target, ".env"), []byte("SECRET=1\n"), 0o600)
		a.keep = filepath.Join(a.target, ".env")
	}
	if err := os.RemoveAll(wt.Path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a.target, wt.Path); err != nil {
		t.Fatal(err)
	}
	return a
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// refused fails t unless w says alice's worktree was kept because it is
// a link, and the link's target is whole.
func (a linkAttack) refused(t *testing.T, how string, w *Worktree) {
	t.Helper()
	if w == nil || w.Removed || !strings.Contains(w.Kept, a.alice) || !strings.Contains(w.Kept, "symbolic link") {
		t.Errorf("%s: worktree %+v, want it kept, naming %s as a symbolic link", how, w, a.alice)
	}
	if _, err := os.Stat(a.keep); err != nil {
		t.Errorf("%s: the link's target lost %s: %v", how, a.keep, err)
	}
	if !strings.Contains(git(t, a.repo, "worktree", "list", "--porcelain"), "worktree "+a.target+"\n") {
		t.Errorf("%s: git no longer lists the link's target %s", how, a.target)
	}
}

// TestDepartRefusesAPlantedLink: kill-pane and shutdown (both Depart)
// leave what the link names alone, and say why.
func TestDepartRefusesAPlantedLink(t *testing.T) {
	for _, kind := range []string{"teammate", "own"} {
		a := plantLink(t, kind)
		deps, err := a.o.Depart(context.Background(), a.tm, []string{"alice"})
		if err != nil || len(deps) != 1 {
			t.Fatalf("Depart (%s): %+v, %v", kind, deps, err)
		}
		a.refused(t, "Depart ("+kind+")", deps[0].Worktree)
	}
}

// TestCleanupRefusesAPlantedLink: deleting the team, a dry run too.
func TestCleanupRefusesAPlantedLink(t *testing.T) {
	for _, kind := range []string{"teammate", "own"} {
		a := plantLink(t, kind)
		for _, dry := range []bool{true, false} {
			res, _ := a.o.Cleanup(context.Background(), a.tm, CleanupOptions{Force: true, DryRun: dry})
			if res == nil || len(res.Members) != 1 {
				t.Fatalf("Cleanup (%s, dry %v): %+v", kind, dry, res)
			}
			a.refused(t, "Cleanup ("+kind+")", res.Members[0].Worktree)
		}
	}
}

// TestReapSweepRefusesAPlantedLink: the sweep after a reap.
func TestReapSweepRefusesAPlantedLink(t *testing.T) {
	for _, kind := range []string{"teammate", "own"} {
		a := plantLink(t, kind)
		var warned []string
		a.o.Backend.Warn = func(f string, args ...any) { warned = append(warned, f) }
		res, _ := a.o.Reap(context.Background(), a.tm.Root, ReapOptions{SocketDir: t.TempDir()})
		if res != nil && len(res.Worktrees) != 0 {
			t.Errorf("Reap (%s) swept %+v", kind, res.Worktrees)
		}
		a.refused(t, "Reap ("+kind+")", &Worktree{Path: a.alice, Kept: a.alice + " symbolic link"})
	}
}

// TestDepartTrustsTheRecordNotTheRow: a member row whose worktreePath
// names a worktree paneteam made for someone else (here the same name's
// worktree in another repository, where paneteam puts it) is not
// removed on the row's word: only the record says what is alice's.
func TestDepartTrustsTheRecordNotTheRow(t *testing.T) {
	ctx := context.Background()
	a := plantLink(t, "teammate")
	os.Remove(a.alice) // alice's own worktree (the link) is not the point here
	other := testutil.GitRepo(t)
	wt, err := worktree.Create(ctx, other, a.tm.Name, "alice") // no record: not given to this alice
	if err != nil {
		t.Fatal(err)
	}
	state := a.o.Backend.Getenv("PANETEAM_STATE_DIR")
	worktree.OpenRecords(state).Forget(a.alice)
	if _, err := a.tm.Update(ctx, a.o.Lock, func(c *team.Config) error {
		c.Member("alice").WorktreePath = wt.Path
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	deps, err := a.o.Depart(ctx, a.tm, []string{"alice"})
	if err != nil || len(deps) != 1 || !deps[0].Removed {
		t.Fatalf("Depart: %+v, %v", deps, err)
	}
	w := deps[0].Worktree
	if w == nil || w.Removed || !w.NotOurs || !strings.Contains(w.Kept, "no record") || !strings.Contains(w.Kept, wt.Path) {
		t.Errorf("worktree %+v, want it left alone for want of a record, named", w)
	}
	if _, err := os.Stat(filepath.Join(wt.Path, ".git")); err != nil {
		t.Errorf("the worktree the row named was removed: %v", err)
	}
}
