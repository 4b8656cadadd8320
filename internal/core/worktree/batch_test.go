package worktree

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// giveEnded gives each name a worktree in repo, recorded as a teammate
// that has ended, and returns their records in the order given.
func giveEnded(t *testing.T, repo string, recs Records, names ...string) []Record {
	t.Helper()
	var out []Record
	for _, n := range names {
		wt, err := Give(context.Background(), recs, repo, "/root", "crew", n, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		r, err := recs.Read(wt.Path)
		if err != nil || r == nil {
			t.Fatalf("%s's record: %v, %v", n, r, err)
		}
		out = append(out, *r)
	}
	return out
}

// relink replaces the folder at path with a link to target, keeping the
// folder aside (as a teammate's process could).
func relink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.Rename(path, path+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveAllRefusesWhatChangedSinceItsRecord: a removal of several
// worktrees keeps each one that changed after paneteam recorded it,
// before the removal began (alice: a new file; bob: its folder now a
// link to one of the person's own worktrees) or during it, after the
// repository was read and another worktree already went (dave: a new
// file; erin: relinked to dave's worktree; frank: a commit; grace:
// locked; henry: switched to another branch). Only carol, untouched,
// goes; what the links name, the commits and every file stay.
func TestRemoveAllRefusesWhatChangedSinceItsRecord(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	recs := OpenRecords(t.TempDir())
	list := giveEnded(t, repo, recs, "carol", "alice", "bob", "dave", "erin", "frank", "grace", "henry")
	by := map[string]Record{}
	for _, r := range list {
		by[r.Member] = r
	}
	own := filepath.Join(t.TempDir(), "feature")
	run(t, repo, "worktree", "add", "-q", "-b", "feature", own)
	write(t, own, ".env", "SECRET=1\n") // ignored: nothing git calls unsaved

	write(t, by["alice"].Path, "notes.txt", "mine\n")
	if err := os.RemoveAll(by["bob"].Path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(own, by["bob"].Path); err != nil {
		t.Fatal(err)
	}
	afterEach = func(r Record) {
		if r.Member != "carol" {
			return
		}
		write(t, by["dave"].Path, "late.txt", "written after the repository was read\n")
		relink(t, by["erin"].Path, by["dave"].Path)
		commitWork(t, by["frank"].Path)
		run(t, repo, "worktree", "lock", by["grace"].Path)
		run(t, by["henry"].Path, "checkout", "-q", "-b", "elsewhere")
	}
	t.Cleanup(func() { afterEach = nil })

	errs := RemoveAll(ctx, list)
	want := map[string]string{
		"alice": "1 uncommitted change(s) (notes.txt)",
		"bob":   "symbolic link",
		"dave":  "1 uncommitted change(s) (late.txt)",
		"erin":  "symbolic link",
		"frank": "1 commit(s) on no other branch",
		"grace": "locked",
		"henry": "it is on elsewhere, not on its branch",
	}
	for i, r := range list {
		err := errs[i]
		if r.Member == "carol" {
			if err != nil {
				t.Errorf("carol, untouched, was kept: %v", err)
			}
			if exists(r.Path) || run(t, repo, "branch", "--list", r.Branch) != "" {
				t.Errorf("carol's worktree or branch is still there")
			}
			continue
		}
		if !IsKept(err) || !strings.Contains(err.Error(), want[r.Member]) || !strings.Contains(err.Error(), r.Path) {
			t.Errorf("%s: %v, want it kept, naming %s and saying %q", r.Member, err, r.Path, want[r.Member])
		}
		if run(t, repo, "branch", "--list", r.Branch) == "" {
			t.Errorf("%s's branch was deleted", r.Member)
		}
	}
	for _, f := range []string{
		filepath.Join(by["alice"].Path, "notes.txt"), filepath.Join(own, ".env"), filepath.Join(own, "README"),
		filepath.Join(by["dave"].Path, "late.txt"), filepath.Join(by["erin"].Path+".real", "README"),
		filepath.Join(by["frank"].Path, "work"), filepath.Join(by["grace"].Path, "README"), filepath.Join(by["henry"].Path, "README"),
	} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was lost: %v", f, err)
		}
	}
	if run(t, repo, "branch", "--list", "feature") == "" || run(t, repo, "branch", "--list", "elsewhere") == "" {
		t.Errorf("a branch that is not a teammate's went")
	}
	if l := run(t, repo, "worktree", "list", "--porcelain"); !strings.Contains(l, "worktree "+own+"\n") || !strings.Contains(l, "worktree "+by["dave"].Path+"\n") {
		t.Errorf("git no longer lists the person's worktree or dave's:\n%s", l)
	}
}

// TestRemoveAllKeepsCommitsOnlyTheyHold: two worktrees whose branches
// hold the same commit, on no other branch, removed together: removed
// one at a time, the first goes (the other branch holds its commit) and
// the second stays (now nothing else does). Removed together, the same:
// the commit is never left on no branch.
func TestRemoveAllKeepsCommitsOnlyTheyHold(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	recs := OpenRecords(t.TempDir())
	list := giveEnded(t, repo, recs, "alice", "bob", "carol")
	commitWork(t, list[0].Path)
	run(t, list[1].Path, "merge", "-q", "--ff-only", list[0].Branch)
	work := run(t, list[0].Path, "rev-parse", "HEAD")

	errs := RemoveAll(ctx, list)
	if errs[0] != nil || exists(list[0].Path) {
		t.Errorf("alice, whose commit bob's branch holds: %v, want removed", errs[0])
	}
	if !IsKept(errs[1]) || !strings.Contains(errs[1].Error(), "1 commit(s) on no other branch") || !exists(list[1].Path) {
		t.Errorf("bob, then the only branch with the commit: %v, want kept", errs[1])
	}
	if errs[2] != nil || exists(list[2].Path) {
		t.Errorf("carol: %v, want removed", errs[2])
	}
	if run(t, repo, "branch", "--contains", work) == "" {
		t.Errorf("the commit %s is on no branch any more", work)
	}
}

// TestRemoveAllReadsTheRepositoryOnce: removing four worktrees that hold
// nothing reads the repository's common folder and worktree list once,
// each worktree's status once, and deletes the four branches in one git.
func TestRemoveAllReadsTheRepositoryOnce(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	recs := OpenRecords(t.TempDir())
	list := giveEnded(t, repo, recs, "alice", "bob", "carol", "dave")
	log := gitLog(t)
	errs := RemoveAll(ctx, list)
	got, _ := os.ReadFile(log)
	for i, err := range errs {
		if err != nil || exists(list[i].Path) {
			t.Errorf("%s: %v, want removed", list[i].Member, err)
		}
	}
	if b := run(t, repo, "branch", "--list", BranchPrefix+"*"); b != "" {
		t.Errorf("branches left: %s", b)
	}
	calls := strings.Split(strings.TrimSpace(string(got)), "\n")
	count := map[string]int{}
	for _, c := range calls {
		for _, k := range []string{"--git-common-dir", "worktree list", "status", "rev-list", "update-ref"} {
			if strings.Contains(c, k) {
				count[k]++
			}
		}
	}
	if want := map[string]int{"--git-common-dir": 1, "worktree list": 1, "status": 4, "update-ref": 1}; fmt.Sprint(count) != fmt.Sprint(want) || len(calls) != 7 {
		t.Errorf("git ran %d times (%v), want 7 (%v):\n%s", len(calls), count, want, got)
	}
}

// gitLog puts a git first on PATH that logs each call to the file it
// returns (empty until the first call), and runs the real one.
func gitLog(t *testing.T) string {
	t.Helper()
	real, err := lookGit()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %s\nexec %s \"$@\"\n", log, real)
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

func lookGit() (string, error) { return exec.LookPath("git") }

// TestParseStatus reads `git status --porcelain=v2 -z --branch` as git
// 2.39 prints it: a rename's original path is not a change of its own,
// and paths keep their spaces.
func TestParseStatus(t *testing.T) {
	oid := strings.Repeat("a", 40)
	out := strings.Join([]string{
		"# branch.oid " + oid, "# branch.head paneteam/crew/alice",
		"1 .M N... 100644 100644 100644 " + oid + " " + oid + " a file.txt",
		"2 R. N... 100644 100644 100644 " + oid + " " + oid + " R100 new name", "old name",
		"u UU N... 100644 100644 100644 100644 " + oid + " " + oid + " " + oid + " both.txt",
		"? notes 2.txt", "",
	}, "\x00")
	branch, head, changes := parseStatus(out)
	if branch != "paneteam/crew/alice" || head != oid || strings.Join(changes, "|") != "a file.txt|new name|both.txt|notes 2.txt" {
		t.Errorf("parseStatus: %q, %q, %q", branch, head, changes)
	}
	if branch, head, changes := parseStatus("# branch.oid " + oid + "\x00# branch.head (detached)\x00"); branch != "(detached)" || head != oid || len(changes) != 0 {
		t.Errorf("a clean detached tree: %q, %q, %q", branch, head, changes)
	}
}
