package land

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestReviewTellsCountsAndConflictsWithoutTouchingATree(t *testing.T) {
	f := newFixture(t)
	f.teammate("alice", map[string]string{"a.txt": "one\nALICE\nthree\n"})
	f.teammate("bob", map[string]string{"a.txt": "one\nBOB\nthree\n", "d.txt": "d\n"})
	carol := f.teammate("carol", map[string]string{"c.txt": "sea\n"})
	f.write(carol.Path, "wip.txt", "wip\n")
	f.teammate("dave", nil) // an empty commit only: work, but no change
	// The lead changed alice's line meanwhile, and committed it.
	f.commit(f.repo, "lead's", map[string]string{"a.txt": "one\nLEAD\nthree\n"})
	state := f.leadState()

	l, _ := FindLead(context.Background(), f.repo)
	recs, _ := TeamRecords(f.recs, "t")
	list, err := Review(context.Background(), l, recs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range list {
		got[e.Name] = e
	}
	a, b, c := got["alice"], got["bob"], got["carol"]
	if a.Clean || !slices.Equal(a.ConflictsWith, []string{"bob"}) || !slices.Equal(a.ConflictFiles, []string{"a.txt"}) {
		t.Errorf("alice: %+v, want not clean, conflicting with bob in a.txt", a)
	}
	if b.Ahead != 1 || b.Added != 2 || b.Removed != 1 || !slices.Equal(b.ConflictsWith, []string{"alice"}) {
		t.Errorf("bob: %+v, want 1 commit, +2 -1, conflicting with alice", b)
	}
	if !c.Clean || c.Uncommitted != 1 || len(c.ConflictsWith) != 0 || c.Added != 2 {
		t.Errorf("carol: %+v, want clean, 1 uncommitted file, +2, no conflicts", c)
	}
	if got := f.leadState(); got != state {
		t.Errorf("review changed the lead's tree or index")
	}
}

// Reading a teammate's uncommitted files never writes its index: a
// `git status` that refreshed it would take index.lock, and the
// teammate's own `git commit` at that moment would fail on it.
func TestDirtyPathsLeavesTheTeammatesIndexAlone(t *testing.T) {
	f := newFixture(t)
	r := f.teammate("alice", map[string]string{"c.txt": "sea\n"})
	// Stat data that no longer matches the index: a refresh would
	// rewrite the index.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(r.Path, "a.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	index := f.git(r.Path, "rev-parse", "--git-path", "index")
	if !filepath.IsAbs(index) {
		index = filepath.Join(r.Path, index)
	}
	before, _ := os.ReadFile(index)
	if files, err := dirtyPaths(context.Background(), r.Path); err != nil || len(files) != 0 {
		t.Fatalf("dirtyPaths: %v, %v; want none", files, err)
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(after, before) {
		t.Error("reading alice's uncommitted files rewrote her index")
	}
}
