package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// newRepo makes a real repository with one commit, a .gitignore and a
// .worktreeinclude.
func newRepo(t *testing.T) string {
	t.Helper()
	testutil.RequireTool(t, "git")
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	write(t, dir, "README", "hello\n")
	write(t, dir, ".gitignore", ".env\nbuild/\nsecret.key\n")
	run(t, dir, "add", "README", ".gitignore")
	run(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(gitEnv(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commitWork commits a new file in the worktree at wt: a commit no other
// branch holds yet.
func commitWork(t *testing.T, wt string) {
	t.Helper()
	write(t, wt, "work", "w")
	run(t, wt, "add", "work")
	run(t, wt, "commit", "-q", "-m", "work")
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func TestCreateMakesBranchAndCopiesIncludedIgnoredFiles(t *testing.T) {
	repo := newRepo(t)
	write(t, repo, ".env", "TOKEN=1\n")
	write(t, repo, "build/out.bin", "x")
	write(t, repo, "secret.key", "k")
	write(t, repo, "notes.txt", "untracked, not ignored\n")
	// .env and notes.txt are listed; only .env is ignored, so only it is
	// copied. secret.key is ignored but not listed.
	write(t, repo, IncludeFile, ".env\nnotes.txt\n")

	ctx := context.Background()
	wt, err := Create(ctx, filepath.Join(repo), "review", "alice")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(repo, ".paneteam", "worktrees", "review", "alice")
	if !samePath(wt.Path, want) {
		t.Fatalf("path %s, want %s", wt.Path, want)
	}
	if got := run(t, wt.Path, "symbolic-ref", "--short", "HEAD"); got != "paneteam/review/alice" {
		t.Fatalf("branch %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(wt.Path, ".env")); string(b) != "TOKEN=1\n" {
		t.Fatalf(".env not copied: %q", b)
	}
	for _, f := range []string{"notes.txt", "secret.key", "build/out.bin"} {
		if exists(filepath.Join(wt.Path, f)) {
			t.Errorf("%s copied but should not be", f)
		}
	}
	if strings.Join(wt.Copied, ",") != ".env" {
		t.Errorf("Copied = %v", wt.Copied)
	}
	// The main tree does not show the worktrees folder as untracked.
	if st := run(t, repo, "status", "--porcelain"); strings.Contains(st, ".paneteam") {
		t.Fatalf("main tree status shows paneteam's folder:\n%s", st)
	}
	// Creating again finds the same worktree.
	again, err := Create(ctx, repo, "review", "alice")
	if err != nil || !again.Reused || !samePath(again.Path, wt.Path) {
		t.Fatalf("second Create: %+v, %v", again, err)
	}
}

func TestCreateRefusesEscapingNames(t *testing.T) {
	repo := newRepo(t)
	for _, c := range [][2]string{{"..", "a"}, {"t", ".."}, {"t", "a/b"}, {"a/../..", "x"}, {"t", ".hidden"}, {"t", "-x"}, {"t", ""}} {
		_, err := Create(context.Background(), repo, c[0], c[1])
		if err == nil || !strings.Contains(err.Error(), "cannot name a worktree") {
			t.Errorf("Create(%q, %q) = %v, want a refusal", c[0], c[1], err)
		}
	}
	if exists(filepath.Join(repo, ".paneteam")) {
		t.Fatal("a refused Create left a folder behind")
	}
}

func TestCreateRefusesSymlinkedFolder(t *testing.T) {
	repo := newRepo(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(repo, ".paneteam")); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(context.Background(), repo, "t", "a"); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("Create through a symlink: %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("wrote through the symlink: %v", entries)
	}
}

func TestCreateOutsideRepoSaysSo(t *testing.T) {
	testutil.RequireTool(t, "git")
	_, err := Create(context.Background(), t.TempDir(), "t", "a")
	if err == nil || !strings.Contains(err.Error(), "not in a git repository") {
		t.Fatalf("got %v", err)
	}
}

func TestRemoveCleanWorktreeDeletesTreeAndBranch(t *testing.T) {
	repo := newRepo(t)
	ctx := context.Background()
	wt, err := Create(ctx, repo, "t", "a")
	if err != nil {
		t.Fatal(err)
	}
	write(t, wt.Path, "build/cache", "ignored output does not count")
	if err := Remove(ctx, recordOf(wt)); err != nil {
		t.Fatal(err)
	}
	if exists(wt.Path) || exists(filepath.Join(repo, ".paneteam")) {
		t.Fatal("worktree or its empty folders still there")
	}
	if out := run(t, repo, "branch", "--list", "paneteam/*"); out != "" {
		t.Fatalf("branch left: %q", out)
	}
	if err := Remove(ctx, recordOf(wt)); err != nil {
		t.Fatalf("removing again: %v", err)
	}
}

func TestRemoveKeepsWorkThatWouldBeLost(t *testing.T) {
	cases := map[string]func(t *testing.T, repo, wt string){
		"modified file":  func(t *testing.T, _, wt string) { write(t, wt, "README", "changed\n") },
		"untracked file": func(t *testing.T, _, wt string) { write(t, wt, "new.go", "package x\n") },
		"staged file": func(t *testing.T, _, wt string) {
			write(t, wt, "staged", "s")
			run(t, wt, "add", "staged")
		},
		"unpushed commit": func(t *testing.T, _, wt string) { commitWork(t, wt) },
		"commit on detached HEAD": func(t *testing.T, _, wt string) {
			run(t, wt, "checkout", "-q", "--detach")
			commitWork(t, wt)
		},
		"locked": func(t *testing.T, repo, wt string) { run(t, repo, "worktree", "lock", wt) },
	}
	for name, dirty := range cases {
		t.Run(name, func(t *testing.T) {
			repo := newRepo(t)
			ctx := context.Background()
			wt, err := Create(ctx, repo, "t", "a")
			if err != nil {
				t.Fatal(err)
			}
			dirty(t, repo, wt.Path)
			if err := Check(ctx, recordOf(wt)); !IsKept(err) {
				t.Fatalf("Check = %v, want kept", err)
			}
			err = Remove(ctx, recordOf(wt))
			var k *KeptError
			if !errors.As(err, &k) || !strings.Contains(err.Error(), wt.Path) {
				t.Fatalf("Remove = %v, want a KeptError naming the path", err)
			}
			if !exists(filepath.Join(wt.Path, "README")) {
				t.Fatal("worktree deleted")
			}
			if out := run(t, repo, "branch", "--list", "paneteam/t/a"); out == "" {
				t.Fatal("branch deleted")
			}
		})
	}
}

func TestRemoveAfterMergeOrPush(t *testing.T) {
	repo := newRepo(t)
	ctx := context.Background()
	wt, err := Create(ctx, repo, "t", "a")
	if err != nil {
		t.Fatal(err)
	}
	commitWork(t, wt.Path)
	if !IsKept(Check(ctx, recordOf(wt))) {
		t.Fatal("unmerged commit not detected")
	}
	// Once another branch holds the commit, nothing is lost.
	run(t, repo, "merge", "-q", "--ff-only", "paneteam/t/a")
	if err := Remove(ctx, recordOf(wt)); err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "log", "--format=%s", "-1"); got != "work" {
		t.Fatalf("merged work missing: %q", got)
	}
}

// TestRemoveAfterPushOrTag: a commit a remote-tracking branch or a tag
// holds is saved, so the worktree and its branch go, and the work stays.
func TestRemoveAfterPushOrTag(t *testing.T) {
	cases := map[string]struct {
		save  func(t *testing.T, repo string)
		where string // a ref that must still hold the work
	}{
		"pushed": {func(t *testing.T, repo string) {
			remote := t.TempDir()
			run(t, remote, "init", "-q", "--bare")
			run(t, repo, "remote", "add", "origin", remote)
			run(t, repo, "push", "-q", "origin", "paneteam/t/a")
		}, "refs/remotes/origin/paneteam/t/a"},
		"tagged": {func(t *testing.T, repo string) { run(t, repo, "tag", "saved", "paneteam/t/a") }, "refs/tags/saved"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			repo := newRepo(t)
			ctx := context.Background()
			wt, err := Create(ctx, repo, "t", "a")
			if err != nil {
				t.Fatal(err)
			}
			commitWork(t, wt.Path)
			if !IsKept(Check(ctx, recordOf(wt))) {
				t.Fatal("unsaved commit not detected")
			}
			c.save(t, repo)
			if err := Remove(ctx, recordOf(wt)); err != nil {
				t.Fatal(err)
			}
			if exists(wt.Path) {
				t.Fatal("worktree still there")
			}
			if out := run(t, repo, "branch", "--list", "paneteam/*"); out != "" {
				t.Fatalf("branch left: %q", out)
			}
			if got := run(t, repo, "log", "--format=%s", "-1", c.where); got != "work" {
				t.Fatalf("%s holds %q, want the work", c.where, got)
			}
		})
	}
}

func TestRemoveRefusesWhatIsNotALinkedWorktree(t *testing.T) {
	repo := newRepo(t)
	plain := t.TempDir()
	write(t, plain, "file", "x")
	sub := filepath.Join(repo, "sub")
	write(t, sub, "f", "x")
	for _, p := range []string{repo, plain, sub} {
		r := Record{Repo: repo, Path: p, Team: "t", Member: "a", Branch: Branch("t", "a")}
		if err := Remove(context.Background(), r); !IsKept(err) {
			t.Errorf("Remove(%s) = %v, want kept", p, err)
		}
	}
	if !exists(filepath.Join(repo, "README")) || !exists(filepath.Join(plain, "file")) || !exists(filepath.Join(sub, "f")) {
		t.Fatal("something was deleted")
	}
}

func TestCreateReusesBranchLeftBehind(t *testing.T) {
	repo := newRepo(t)
	ctx := context.Background()
	wt, err := Create(ctx, repo, "t", "a")
	if err != nil {
		t.Fatal(err)
	}
	commitWork(t, wt.Path)
	// The tree goes (say, removed by hand) but the branch stays.
	run(t, repo, "worktree", "remove", wt.Path)
	again, err := Create(ctx, repo, "t", "a")
	if err != nil {
		t.Fatal(err)
	}
	if !again.Reused || !exists(filepath.Join(again.Path, "work")) {
		t.Fatalf("earlier work not checked out again: %+v", again)
	}
}

// recordOf is the record Give would write of a worktree Create made,
// without its base.
func recordOf(wt *Worktree) Record {
	return Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch,
		Team: filepath.Base(filepath.Dir(wt.Path)), Member: filepath.Base(wt.Path)}
}
