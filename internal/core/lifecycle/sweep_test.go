package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestReapFinishesWorktreesALeadLeft: whoever reaps (the command line,
// the dashboard, a library caller) also removes the untouched worktrees
// of teammates that ended while their removal was cut short, and says so;
// one holding work stays, and a dry run removes nothing.
func TestReapFinishesWorktreesALeadLeft(t *testing.T) {
	ctx := context.Background()
	root, state, repo := testutil.Root(t), t.TempDir(), testutil.GitRepo(t)
	var warned []string
	o := Options{Backend: backend.Env{
		Getenv: func(k string) string {
			if k == "PANETEAM_STATE_DIR" {
				return state
			}
			return ""
		},
		Warn: func(f string, a ...any) { warned = append(warned, f) },
	}}
	recs := worktree.OpenRecords(state)
	const gone = 1 << 30 // no such process
	give := func(name string) string {
		wt, err := worktree.Give(ctx, recs, repo, root, "crew", name, gone)
		if err != nil {
			t.Fatal(err)
		}
		return wt.Path
	}
	cut, dirty := give("cut"), give("dirty")
	os.WriteFile(filepath.Join(dirty, "draft.txt"), []byte("x"), 0o644)

	dry, err := o.Reap(ctx, root, ReapOptions{DryRun: true, SocketDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Worktrees) != 0 || !exists(cut) {
		t.Fatalf("a dry run removed worktrees: %+v", dry.Worktrees)
	}
	res, err := o.Reap(ctx, root, ReapOptions{SocketDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Worktrees) != 1 || res.Worktrees[0] != (SweptWorktree{Team: "crew", Member: "cut", Path: cut}) {
		t.Fatalf("swept %+v, want crew/cut at %s", res.Worktrees, cut)
	}
	if exists(cut) {
		t.Error("the untouched worktree of an ended teammate is still there")
	}
	if !exists(filepath.Join(dirty, "draft.txt")) {
		t.Error("a worktree holding work was removed")
	}
	if len(warned) != 0 {
		t.Errorf("warnings: %s", strings.Join(warned, "; "))
	}
}
