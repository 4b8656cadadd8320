package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The lead's folder cases, each with what a person is told.
func TestPreflightSaysWhyTeammatesCannotHaveWorktrees(t *testing.T) {
	ctx := context.Background()
	plain := t.TempDir()
	bare := t.TempDir()
	run(t, bare, "init", "-q", "--bare")
	empty := t.TempDir()
	run(t, empty, "init", "-q", "-b", "main")
	repo := newRepo(t)
	for _, c := range []struct {
		name, dir, want string
	}{
		{"not a repository", plain, "is not in a git repository"},
		{"bare", bare, "not a working tree"},
		{"inside .git", filepath.Join(repo, ".git"), "not a working tree"},
		{"no commit", empty, "has no commit yet"},
	} {
		notes, err := Preflight(ctx, c.dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "as without worktrees") {
			t.Errorf("%s: Preflight = %v, %v; want an error saying %q and that teammates run as without worktrees", c.name, notes, err, c.want)
		}
	}
	if notes, err := Preflight(ctx, repo); err != nil || len(notes) != 0 {
		t.Errorf("a plain repository on a branch: %v, %v; want no note", notes, err)
	}
}

func TestPreflightNotesMergeAndDetachedHead(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	run(t, repo, "checkout", "-q", "-b", "side")
	write(t, repo, "README", "side\n")
	run(t, repo, "commit", "-q", "-am", "side")
	run(t, repo, "checkout", "-q", "main")
	write(t, repo, "README", "main\n")
	run(t, repo, "commit", "-q", "-am", "main")
	cmd := []string{"merge", "side"}
	// The conflict leaves the merge in progress; run() would fail on it.
	// git asks who merges before it starts, and a fresh HOME names nobody.
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"} {
		t.Setenv(k, v)
	}
	if out, err := gitRaw(ctx, repo, cmd...); err == nil {
		t.Fatalf("merge did not conflict: %s", out)
	}
	notes, err := Preflight(ctx, repo)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "a merge is in progress") {
		t.Errorf("during a merge: %q, %v; want a note of the merge", notes, err)
	}
	// Worktrees still come, from HEAD.
	wt, err := Create(ctx, repo, "t", "a")
	if err != nil || wt.Base != run(t, repo, "rev-parse", "HEAD") {
		t.Fatalf("Create during a merge: %+v, %v", wt, err)
	}
	run(t, repo, "merge", "--abort")

	run(t, repo, "checkout", "-q", "--detach", "HEAD~1")
	notes, err = Preflight(ctx, repo)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "HEAD is detached") {
		t.Errorf("detached: %q, %v; want a note of the detached HEAD", notes, err)
	}
	// An untouched worktree of a detached HEAD holds nothing of its own:
	// it goes, though no branch holds its commit.
	run(t, repo, "commit", "-q", "--allow-empty", "-m", "detached only")
	wt, err = Create(ctx, repo, "t", "b")
	if err != nil {
		t.Fatal(err)
	}
	if err := Remove(ctx, recordOf(wt)); !IsKept(err) {
		t.Errorf("Remove without the base: %v, want kept (its commit is on no branch)", err)
	}
	r := recordOf(wt)
	r.Base = wt.Base
	if err := Remove(ctx, r); err != nil || exists(wt.Path) {
		t.Errorf("Remove with its base: %v (exists %v), want it gone", err, exists(wt.Path))
	}
}

// A lead in a subfolder of a linked worktree: the teammate's worktree
// starts from that worktree's HEAD (not the main tree's), lives under the
// main tree, and the teammate starts in the same subfolder.
func TestCreateFromLinkedWorktreeSubfolder(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	write(t, repo, "pkg/sub/f.go", "package sub\n")
	run(t, repo, "add", "pkg")
	run(t, repo, "commit", "-q", "-m", "pkg")
	linked := filepath.Join(t.TempDir(), "feature")
	run(t, repo, "worktree", "add", "-q", "-b", "feature", linked)
	write(t, linked, "pkg/sub/g.go", "package sub\n")
	run(t, linked, "add", "pkg")
	run(t, linked, "commit", "-q", "-m", "feature work")

	wt, err := Create(ctx, filepath.Join(linked, "pkg", "sub"), "team", "alice")
	if err != nil {
		t.Fatal(err)
	}
	if want := run(t, linked, "rev-parse", "HEAD"); wt.Base != want {
		t.Errorf("base %s, want the linked worktree's HEAD %s", wt.Base, want)
	}
	if !samePath(wt.Path, filepath.Join(repo, Dir, "worktrees", "team", "alice")) {
		t.Errorf("path %s, want under the main tree %s", wt.Path, repo)
	}
	if !samePath(wt.Cwd, filepath.Join(wt.Path, "pkg", "sub")) {
		t.Errorf("cwd %s, want the same subfolder of the worktree", wt.Cwd)
	}
	if !exists(filepath.Join(wt.Cwd, "g.go")) {
		t.Error("the worktree lacks the linked worktree's commit")
	}
}

// Several teammates at once: every add succeeds, each recorded.
func TestGiveManyAtOnce(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	recs := OpenRecords(t.TempDir())
	status := run(t, repo, "status", "--porcelain")
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Give(ctx, recs, repo, "/root", "team", fmt.Sprintf("m%d", i), os.Getpid())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("teammate m%d: %v", i, err)
		}
	}
	list, lerrs := recs.List()
	if len(list) != len(errs) || len(lerrs) != 0 {
		t.Fatalf("records: %+v, %v", list, lerrs)
	}
	// One add at a time: the exclude line is written once.
	if b, _ := os.ReadFile(filepath.Join(repo, ".git", "info", "exclude")); strings.Count(string(b), "/.paneteam/") != 1 {
		t.Errorf("info/exclude after %d adds at once:\n%s", len(errs), b)
	}
	if got := run(t, repo, "status", "--porcelain"); got != status {
		t.Errorf("the person's git status changed: %q, was %q", got, status)
	}
	// The teammates are alive (this process): nothing goes.
	if removed, errs := Sweep(ctx, recs); len(removed) != 0 || len(errs) != 0 {
		t.Errorf("Sweep while the teammates run: %v, %v", removed, errs)
	}
}

// Once the teammate's process is gone, an untouched worktree goes with
// its branch and record; one with a commit or an uncommitted file stays,
// and Describe says what it holds.
func TestSweepAfterTeammatesEnd(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	recs := OpenRecords(t.TempDir())
	const gone = 1 << 30 // no such process
	var wts []*Worktree
	for _, n := range []string{"idle", "committed", "dirty"} {
		wt, err := Give(ctx, recs, repo, "/root", "team", n, gone)
		if err != nil {
			t.Fatal(err)
		}
		wts = append(wts, wt)
	}
	commitWork(t, wts[1].Path)
	write(t, wts[2].Path, "notes.txt", "draft")

	removed, errs := Sweep(ctx, recs)
	if len(removed) != 1 || removed[0].Member != "idle" || len(errs) != 0 {
		t.Errorf("Sweep removed %+v, %v; want idle only", removed, errs)
	}
	if exists(wts[0].Path) || run(t, repo, "branch", "--list", wts[0].Branch) != "" {
		t.Error("the untouched worktree or its branch is still there")
	}
	list, _ := recs.List()
	if len(list) != 2 {
		t.Fatalf("records left: %+v", list)
	}
	for _, r := range list {
		st := Describe(ctx, r)
		switch r.Member {
		case "committed":
			if st.Ahead != 1 || st.Changed != 0 || st.Running {
				t.Errorf("committed: %+v", st)
			}
		case "dirty":
			if st.Ahead != 0 || st.Changed != 1 {
				t.Errorf("dirty: %+v", st)
			}
		}
	}
}

// TestTidyLeavesALaterTeammatesWorktree: a removal that read a record of
// an ended teammate does not remove the worktree a later teammate of the
// same name was given since, nor its record; nor is a live process whose
// pid matches but whose start time does not taken for the teammate.
func TestTidyLeavesALaterTeammatesWorktree(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	recs := OpenRecords(t.TempDir())
	const gone = 1 << 30
	old, err := Give(ctx, recs, repo, "/root", "team", "coder", gone)
	if err != nil {
		t.Fatal(err)
	}
	stale, _ := recs.Read(old.Path)
	// A new coder is given the same worktree before the old removal runs.
	if _, err := Give(ctx, recs, repo, "/root", "team", "coder", os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if err := Tidy(ctx, recs, *stale); err != nil {
		t.Fatal(err)
	}
	if cur, _ := recs.Read(old.Path); !exists(old.Path) || cur == nil || cur.PID != os.Getpid() {
		t.Fatalf("the later teammate's worktree or record went: exists %v, record %+v", exists(old.Path), cur)
	}
	// This process's pid with another start time is another process.
	if (Record{PID: os.Getpid(), PIDStart: "1"}).Running() {
		t.Error("a pid with another start time counted as the teammate")
	}
}
