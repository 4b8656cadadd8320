package land

import (
	"context"
	"slices"
	"testing"
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
