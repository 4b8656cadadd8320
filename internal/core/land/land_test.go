package land

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// fixture is a real repository on main, the person's git configuration
// in a file of its own, and paneteam's worktree records.
type fixture struct {
	t    *testing.T
	repo string
	recs worktree.Records
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	testutil.RequireTool(t, "git")
	home := t.TempDir()
	cfg := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(cfg, []byte("[user]\n\tname = Person\n\temail = person@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	f := &fixture{t: t, repo: t.TempDir(), recs: worktree.OpenRecords(t.TempDir())}
	f.git(f.repo, "init", "-q", "-b", "main")
	f.write(f.repo, "a.txt", "one\ntwo\nthree\n")
	f.write(f.repo, "b.txt", "bee\n")
	f.git(f.repo, "add", ".")
	f.git(f.repo, "commit", "-q", "-m", "first")
	return f
}

func (f *fixture) git(dir string, args ...string) string {
	f.t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (f *fixture) write(dir, rel, data string) {
	f.t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// teammate gives name a worktree, records it as ended, and commits
// files (path to content) in it.
func (f *fixture) teammate(name string, files map[string]string) worktree.Record {
	f.t.Helper()
	wt, err := worktree.Create(context.Background(), f.repo, "t", name)
	if err != nil {
		f.t.Fatal(err)
	}
	r := worktree.Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch, Base: wt.Base, Team: "t", Member: name}
	if err := f.recs.Write(r); err != nil {
		f.t.Fatal(err)
	}
	f.commit(wt.Path, name+"'s work", files)
	return r
}

func (f *fixture) commit(dir, msg string, files map[string]string) {
	f.t.Helper()
	for p, c := range files {
		f.write(dir, p, c)
	}
	f.git(dir, "add", ".")
	f.git(dir, "commit", "-q", "--allow-empty", "-m", msg)
}

func (f *fixture) land(r worktree.Record, mode Mode) (*Result, error) {
	f.t.Helper()
	l, err := FindLead(context.Background(), f.repo)
	if err != nil {
		f.t.Fatal(err)
	}
	return Land(context.Background(), Request{Lead: l, Record: r, Records: f.recs, Mode: mode})
}

// leadState is everything of the lead's a land must leave alone or move
// whole: HEAD, every ref, the index and the working tree's status.
func (f *fixture) leadState() string {
	f.t.Helper()
	index, _ := os.ReadFile(filepath.Join(f.repo, ".git", "index"))
	return strings.Join([]string{
		f.git(f.repo, "rev-parse", "--symbolic-full-name", "HEAD"),
		f.git(f.repo, "rev-parse", "HEAD"),
		f.git(f.repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads"),
		f.git(f.repo, "status", "--porcelain=v1", "--untracked-files=all"),
		string(index),
	}, "\n")
}

func (f *fixture) read(rel string) string {
	b, _ := os.ReadFile(filepath.Join(f.repo, rel))
	return string(b)
}

func TestLandEachModeMovesTheLeadAndLetsTheWorktreeGo(t *testing.T) {
	for _, mode := range []Mode{Merge, Squash, Rebase} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t)
			r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
			f.commit(r.Path, "second", map[string]string{"c.txt": "sea\nmore\n"})
			// The lead moves on meanwhile, and has an unrelated dirty file.
			f.commit(f.repo, "lead's own", map[string]string{"b.txt": "bee\nbuzz\n"})
			f.write(f.repo, "a.txt", "one\ntwo\nthree\nmine\n")
			before := f.git(f.repo, "rev-parse", "HEAD")

			res, err := f.land(r, mode)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.read("c.txt"); got != "sea\nmore\n" {
				t.Errorf("c.txt in the lead's tree = %q, want the teammate's work", got)
			}
			if got := f.read("a.txt"); got != "one\ntwo\nthree\nmine\n" {
				t.Errorf("the lead's unrelated uncommitted change was lost: a.txt = %q", got)
			}
			if head := f.git(f.repo, "rev-parse", "HEAD"); head != res.After || head == before {
				t.Errorf("HEAD %s, want the land %s (before %s)", head, res.After, before)
			}
			parents := strings.Fields(f.git(f.repo, "log", "-1", "--format=%P"))
			count := f.git(f.repo, "rev-list", "--count", before+"..HEAD")
			switch mode {
			case Merge:
				if len(parents) != 2 {
					t.Errorf("merge: HEAD has parents %v, want a merge commit", parents)
				}
			case Squash:
				if count != "1" || len(parents) != 1 {
					t.Errorf("squash: %s commits past the lead's, parents %v; want one commit", count, parents)
				}
				if msg := f.git(f.repo, "log", "-1", "--format=%B"); !strings.Contains(msg, "alice's work") || !strings.Contains(msg, "second") {
					t.Errorf("squash message %q does not carry the teammate's commits' messages", msg)
				}
			case Rebase:
				if count != "2" || len(parents) != 1 {
					t.Errorf("rebase: %s commits past the lead's, parents %v; want its 2 commits replayed", count, parents)
				}
			}
			if !res.Removed || res.Kept != nil {
				t.Errorf("worktree not let go: removed %v, kept %v", res.Removed, res.Kept)
			}
			if _, err := os.Stat(r.Path); !os.IsNotExist(err) {
				t.Errorf("the teammate's worktree %s is still there", r.Path)
			}
			if out, _ := exec.Command("git", "-C", f.repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch).Output(); len(out) > 0 {
				t.Errorf("the teammate's branch %s is still there", r.Branch)
			}
			if rec, _ := f.recs.Read(r.Path); rec != nil {
				t.Errorf("the record of a landed worktree stays: %+v", rec)
			}
			if list := f.git(f.repo, "worktree", "list"); strings.Contains(list, scratchPrefix) {
				t.Errorf("a scratch worktree is left:\n%s", list)
			}

			// The undo command puts both branches back; the dirty file stays.
			if out, err := exec.Command("sh", "-c", res.Undo).CombinedOutput(); err != nil {
				t.Fatalf("undo %q: %v\n%s", res.Undo, err, out)
			}
			if head := f.git(f.repo, "rev-parse", "HEAD"); head != before {
				t.Errorf("after undo HEAD is %s, want %s", head, before)
			}
			if tip := f.git(f.repo, "rev-parse", "refs/heads/"+r.Branch); tip != res.Tip {
				t.Errorf("after undo the teammate's branch is %s, want %s", tip, res.Tip)
			}
			if _, err := os.Stat(filepath.Join(f.repo, "c.txt")); !os.IsNotExist(err) {
				t.Errorf("after undo c.txt is still in the lead's tree")
			}
			if got := f.read("a.txt"); got != "one\ntwo\nthree\nmine\n" {
				t.Errorf("undo lost the lead's uncommitted change: a.txt = %q", got)
			}
		})
	}
}

func TestLandConflictRefusesThenLandsOnceUpdated(t *testing.T) {
	f := newFixture(t)
	alice := f.teammate("alice", map[string]string{"a.txt": "one\nALICE\nthree\n"})
	bob := f.teammate("bob", map[string]string{"a.txt": "one\nBOB\nthree\n"})
	if _, err := f.land(alice, Merge); err != nil {
		t.Fatal(err)
	}
	// A merge is a merge commit even where a fast-forward would do.
	if parents := strings.Fields(f.git(f.repo, "log", "-1", "--format=%P")); len(parents) != 2 {
		t.Errorf("merge onto an unmoved branch: HEAD has parents %v, want a merge commit", parents)
	}
	state := f.leadState()
	_, err := f.land(bob, Merge)
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Files) != 1 || ce.Files[0] != "a.txt" {
		t.Fatalf("second land: %v, want a conflict naming a.txt", err)
	}
	if got := f.leadState(); got != state {
		t.Errorf("a refused land changed the lead:\nbefore %s\nafter  %s", state, got)
	}
	if _, err := os.Stat(bob.Path); err != nil {
		t.Errorf("bob's worktree went after a refusal: %v", err)
	}
	// Bob brings his branch up to date and resolves.
	exec.Command("git", "-C", bob.Path, "merge", "main").Run() //nolint:errcheck
	f.commit(bob.Path, "resolve", map[string]string{"a.txt": "one\nALICE\nBOB\nthree\n"})
	if _, err := f.land(bob, Merge); err != nil {
		t.Fatalf("land after resolving: %v", err)
	}
	if got := f.read("a.txt"); got != "one\nALICE\nBOB\nthree\n" {
		t.Errorf("a.txt = %q after bob's resolved land", got)
	}
}

func TestLandFailingHookStopsItAndSaysWhich(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		hook string
	}{{Merge, "pre-merge-commit"}, {Squash, "commit-msg"}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			f := newFixture(t)
			r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
			hook := filepath.Join(f.repo, ".git", "hooks", tc.hook)
			f.write(f.repo, filepath.Join(".git", "hooks", tc.hook), "#!/bin/sh\necho 'lint says no' >&2\nexit 1\n")
			os.Chmod(hook, 0o755)
			state := f.leadState()
			_, err := f.land(r, tc.mode)
			var he *HookError
			if !errors.As(err, &he) || he.Hook != tc.hook || !strings.Contains(he.Output, "lint says no") {
				t.Fatalf("land with a failing %s: %v, want a HookError naming it with its output", tc.hook, err)
			}
			if got := f.leadState(); got != state {
				t.Errorf("a failed hook changed the lead:\nbefore %s\nafter  %s", state, got)
			}
			if _, err := os.Stat(r.Path); err != nil {
				t.Errorf("the worktree went after a failed land: %v", err)
			}
		})
	}
}

func TestLandRefusesADirtyFileItWouldTouchAndUncommittedWork(t *testing.T) {
	f := newFixture(t)
	r := f.teammate("alice", map[string]string{"a.txt": "one\ntwo\nthree\nfour\n"})
	f.write(f.repo, "a.txt", "mine\n")
	state := f.leadState()
	_, err := f.land(r, Merge)
	var de *DirtyError
	if !errors.As(err, &de) || len(de.Files) != 1 || de.Files[0] != "a.txt" {
		t.Fatalf("land over a dirty a.txt: %v, want a DirtyError naming it", err)
	}
	if got := f.leadState(); got != state {
		t.Errorf("a refused land changed the lead")
	}
	f.git(f.repo, "checkout", "a.txt")

	f.write(r.Path, "notyet.txt", "wip\n")
	_, err = f.land(r, Merge)
	var ue *UncommittedError
	if !errors.As(err, &ue) || len(ue.Files) != 1 || ue.Files[0] != "notyet.txt" {
		t.Fatalf("land with uncommitted work: %v, want an UncommittedError naming notyet.txt", err)
	}
	l, _ := FindLead(context.Background(), f.repo)
	res, err := Land(context.Background(), Request{Lead: l, Record: r, Records: f.recs, IncludeUncommitted: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Committed == "" || f.read("notyet.txt") != "wip\n" {
		t.Errorf("--include-uncommitted: committed %q, notyet.txt %q", res.Committed, f.read("notyet.txt"))
	}
}

func TestLandRefusesADetachedLead(t *testing.T) {
	f := newFixture(t)
	r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	f.git(f.repo, "checkout", "-q", "--detach")
	state := f.leadState()
	_, err := f.land(r, Merge)
	var de *DetachedError
	if !errors.As(err, &de) {
		t.Fatalf("land on a detached HEAD: %v, want a DetachedError", err)
	}
	l, _ := FindLead(context.Background(), f.repo)
	if _, err := Queue(context.Background(), QueueRequest{Lead: l, Records: []worktree.Record{r}, Store: f.recs}); !errors.As(err, &de) {
		t.Errorf("land --all on a detached HEAD: %v, want a DetachedError", err)
	}
	if got := f.leadState(); got != state {
		t.Errorf("a refused land changed the detached lead:\nbefore %s\nafter  %s", state, got)
	}
	if _, err := os.Stat(r.Path); err != nil {
		t.Errorf("the teammate's worktree went: %v", err)
	}
	// Review still works there: it says what lands on the commit HEAD is at.
	if list, err := Review(context.Background(), l, []worktree.Record{r}); err != nil || len(list) != 1 || !list[0].Clean {
		t.Errorf("review on a detached HEAD: %+v %v", list, err)
	}
}

// A lead in a linked worktree, on a branch whose name has a slash, with
// a binary file in the change: its own branch moves, main does not.
func TestLandOntoALinkedWorktreesBranch(t *testing.T) {
	f := newFixture(t)
	linked := filepath.Join(t.TempDir(), "feature")
	f.git(f.repo, "worktree", "add", "-q", "-b", "feature/x", linked)
	main := f.git(f.repo, "rev-parse", "main")
	wt, err := worktree.Create(context.Background(), linked, "t", "alice")
	if err != nil {
		t.Fatal(err)
	}
	r := worktree.Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch, Base: wt.Base, Team: "t", Member: "alice"}
	f.recs.Write(r)
	f.commit(wt.Path, "binary", map[string]string{"img.bin": "\x00\x01\x02\xff"})
	l, err := FindLead(context.Background(), linked)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Land(context.Background(), Request{Lead: l, Record: r, Records: f.recs})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.git(linked, "rev-parse", "feature/x"); got != res.After || f.git(f.repo, "rev-parse", "main") != main {
		t.Errorf("feature/x at %s (land %s), main moved: %v", got, res.After, f.git(f.repo, "rev-parse", "main") != main)
	}
	if b, _ := os.ReadFile(filepath.Join(linked, "img.bin")); string(b) != "\x00\x01\x02\xff" {
		t.Errorf("the binary file in the linked worktree: %q", b)
	}
}
