package worktree

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDescribeLeavesTheTeammatesIndexAlone: status and review describe a
// running teammate's worktree; git's status refreshes a stale index and
// writes it back (holding index.lock meanwhile, which fails a commit the
// teammate makes at that moment) unless asked not to.
func TestDescribeLeavesTheTeammatesIndexAlone(t *testing.T) {
	repo := newRepo(t)
	recs := OpenRecords(t.TempDir())
	r := giveEnded(t, repo, recs, "alice")[0]
	// A tracked file whose stat data no longer matches the index.
	var tracked string
	for _, name := range strings.Fields(run(t, r.Path, "ls-files")) {
		tracked = name
		break
	}
	if tracked == "" {
		t.Fatal("the test repository tracks no file")
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(r.Path, tracked), old, old); err != nil {
		t.Fatal(err)
	}
	index := strings.TrimSpace(run(t, r.Path, "rev-parse", "--git-path", "index"))
	if !filepath.IsAbs(index) {
		index = filepath.Join(r.Path, index)
	}
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if st := Describe(context.Background(), r); st.Changed != 0 {
		t.Fatalf("Describe: %d changed files, want 0", st.Changed)
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(after, before) {
		t.Error("describing alice's worktree rewrote her index")
	}
}
