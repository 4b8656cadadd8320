package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planted is a teammate's worktree replaced by a symbolic link, and
// what the link points at.
type planted struct {
	repo   string
	recs   Records
	victim Record // the teammate whose folder is now a link
	target string // what the link names
	keep   string // a file in target that must survive
	branch string // target's branch, which must survive
}

// plantLinks builds the two attacks of issue 39 class 2: a teammate that
// ended replaces its worktree folder with a link to (a) another running
// teammate's worktree, (b) one of the person's own linked worktrees with
// an ignored file in it. Neither target holds anything git would call
// unsaved, so only the link stands between it and its removal.
func plantLinks(t *testing.T) map[string]planted {
	t.Helper()
	ctx := context.Background()
	out := map[string]planted{}
	for _, kind := range []string{"teammate", "own"} {
		repo := newRepo(t)
		recs := OpenRecords(t.TempDir())
		const gone = 1 << 30 // no such process: the attacker has ended
		alice, err := Give(ctx, recs, repo, "/root", "crew", "alice", gone)
		if err != nil {
			t.Fatal(err)
		}
		p := planted{repo: repo, recs: recs}
		switch kind {
		case "teammate":
			bob, err := Give(ctx, recs, repo, "/root", "crew", "bob", os.Getpid())
			if err != nil {
				t.Fatal(err)
			}
			p.target, p.branch = bob.Path, bob.Branch
			p.keep = filepath.Join(bob.Path, "README")
		case "own":
			p.target = filepath.Join(t.TempDir(), "feature")
			run(t, repo, "worktree", "add", "-q", "-b", "feature", p.target)
			p.branch = "feature"
			write(t, p.target, ".env", "SECRET=1\n") // ignored
			p.keep = filepath.Join(p.target, ".env")
		}
		if err := os.RemoveAll(alice.Path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p.target, alice.Path); err != nil {
			t.Fatal(err)
		}
		rec, err := recs.Read(alice.Path)
		if err != nil || rec == nil {
			t.Fatalf("alice's record: %v, %v", rec, err)
		}
		p.victim = *rec
		out[kind] = p
	}
	return out
}

// untouched fails t unless p's target, its file and its branch are all
// still there, and the link was not followed.
func (p planted) untouched(t *testing.T, how string) {
	t.Helper()
	if _, err := os.Stat(p.keep); err != nil {
		t.Errorf("%s: the link's target lost %s: %v", how, p.keep, err)
	}
	if run(t, p.repo, "branch", "--list", p.branch) == "" {
		t.Errorf("%s: the link's target's branch %s was deleted", how, p.branch)
	}
	if !strings.Contains(run(t, p.repo, "worktree", "list", "--porcelain"), "worktree "+p.target+"\n") {
		t.Errorf("%s: git no longer lists the link's target %s", how, p.target)
	}
}

// refusal fails t unless err is a *KeptError that names the path and
// says it is a link.
func refusal(t *testing.T, how string, err error, path string) {
	t.Helper()
	if !IsKept(err) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("%s: %v, want a refusal naming %s as a symbolic link", how, err, path)
	}
}

// TestTidyRefusesAPlantedLink: the removal when the teammate's process
// ends (the router's reaper and the sweep after a reap both Tidy) keeps
// its hands off what a link in place of the worktree names.
func TestTidyRefusesAPlantedLink(t *testing.T) {
	ctx := context.Background()
	for kind, p := range plantLinks(t) {
		err := Tidy(ctx, p.recs, p.victim)
		refusal(t, "Tidy ("+kind+")", err, p.victim.Path)
		p.untouched(t, "Tidy ("+kind+")")
	}
}

// TestSweepRefusesAPlantedLink: the sweep says why it left the link.
func TestSweepRefusesAPlantedLink(t *testing.T) {
	ctx := context.Background()
	for kind, p := range plantLinks(t) {
		removed, errs := Sweep(ctx, p.recs)
		if len(removed) != 0 {
			t.Errorf("Sweep (%s) removed %+v", kind, removed)
		}
		if len(errs) != 1 {
			t.Errorf("Sweep (%s) said %v, want why it left alice's link", kind, errs)
		} else {
			refusal(t, "Sweep ("+kind+")", errs[0], p.victim.Path)
		}
		p.untouched(t, "Sweep ("+kind+")")
	}
}

// TestRemoveIsNotRedirectedAfterItsCheck: a link (or another folder)
// swapped in between the check and the removal is not followed: the
// removal finds what it moved aside is not the folder it checked, puts
// it back and removes nothing.
func TestRemoveIsNotRedirectedAfterItsCheck(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"link", "folder"} {
		repo := newRepo(t)
		recs := OpenRecords(t.TempDir())
		alice, err := Give(ctx, recs, repo, "/root", "crew", "alice", 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		bob, err := Give(ctx, recs, repo, "/root", "crew", "bob", os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		rec, _ := recs.Read(alice.Path)
		st, err := inspect(ctx, *rec, &view{repo: rec.Repo}, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The swap, after the check.
		if err := os.Rename(alice.Path, alice.Path+".old"); err != nil {
			t.Fatal(err)
		}
		if kind == "link" {
			err = os.Symlink(bob.Path, alice.Path)
		} else {
			err = os.Rename(bob.Path, alice.Path)
		}
		if err != nil {
			t.Fatal(err)
		}
		err = st.remove(ctx)
		if !IsKept(err) || !strings.Contains(err.Error(), "replaced") {
			t.Errorf("%s swapped in: %v, want a refusal saying it was replaced", kind, err)
		}
		if _, err := os.Stat(filepath.Join(alice.Path, "README")); err != nil {
			t.Errorf("%s swapped in: what was swapped in lost its files: %v", kind, err)
		}
		if run(t, repo, "branch", "--list", bob.Branch) == "" {
			t.Errorf("%s swapped in: bob's branch went", kind)
		}
	}
}

// TestRemoveRefusesWhatIsNotItsWorktree: a real folder in place of the
// worktree, the worktree moved to another branch, a .git file naming
// another worktree: each is refused as not the worktree paneteam made,
// saying what was found.
func TestRemoveRefusesWhatIsNotItsWorktree(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		plant func(t *testing.T, alice, bob *Worktree)
		want  string
	}{
		"a plain folder": {func(t *testing.T, alice, _ *Worktree) {
			os.RemoveAll(alice.Path)
			write(t, alice.Path, "README", "hello\n")
		}, "no readable .git file"},
		"another branch": {func(t *testing.T, alice, _ *Worktree) {
			run(t, alice.Path, "checkout", "-q", "-b", "elsewhere")
		}, "not on its branch"},
		"bob's .git file": {func(t *testing.T, alice, bob *Worktree) {
			b, _ := os.ReadFile(filepath.Join(bob.Path, ".git"))
			os.WriteFile(filepath.Join(alice.Path, ".git"), b, 0o644)
		}, "names"},
		"a link on the way": {func(t *testing.T, alice, bob *Worktree) {
			team := filepath.Dir(alice.Path)
			os.Rename(team, team+".real")
			os.Symlink(team+".real", team)
		}, "is a symbolic link"},
	}
	for name, c := range cases {
		repo := newRepo(t)
		recs := OpenRecords(t.TempDir())
		alice, err := Give(ctx, recs, repo, "/root", "crew", "alice", 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		bob, err := Give(ctx, recs, repo, "/root", "crew", "bob", os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		rec, _ := recs.Read(alice.Path)
		c.plant(t, alice, bob)
		err = Remove(ctx, *rec)
		var k *KeptError
		if !errors.As(err, &k) || !k.Foreign || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), alice.Path) {
			t.Errorf("%s: %v, want a refusal naming %s and saying %q", name, err, alice.Path, c.want)
		}
		if !exists(filepath.Join(alice.Path, "README")) || !exists(filepath.Join(bob.Path, "README")) {
			t.Errorf("%s: files were removed", name)
		}
	}
}
