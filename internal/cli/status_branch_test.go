package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// statusRepo is a repository on main with a.txt, the team t of msgTeam,
// and a worktree given to alice as spawn-pane --worktree gives one
// (worktree.GiveVia, recorded in the state folder): two commits in it
// and one file not committed. bob has none. It returns the repository
// and alice's worktree.
func statusRepo(t *testing.T) (string, string, map[string]string) {
	t.Helper()
	testutil.RequireTool(t, "git")
	_, vars, tm := msgTeam(t)
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = Person\n\temail = person@example.com\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := t.TempDir()
	gitT(t, repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "-q", "-m", "first")
	state := t.TempDir()
	vars["PANETEAM_STATE_DIR"] = state
	wt, err := worktree.GiveVia(context.Background(), worktree.OpenRecords(state), repo, tm.Root, "t", "alice", 0, worktree.ViaSpawnPane)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(wt.Path, "a.txt"), []byte("one\nALICE\nthree\n"), 0o644)
	gitT(t, wt.Path, "commit", "-q", "-am", "alice changes line two")
	os.WriteFile(filepath.Join(wt.Path, "b.txt"), []byte("bee\n"), 0o644)
	gitT(t, wt.Path, "add", "b.txt")
	gitT(t, wt.Path, "commit", "-q", "-m", "alice adds b")
	os.WriteFile(filepath.Join(wt.Path, "notes.txt"), []byte("not committed\n"), 0o644)
	t.Chdir(repo)
	return repo, wt.Path, vars
}

// memberLine is the line of status's table that starts with name.
func memberLine(t *testing.T, out, name string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), name+" ") {
			return l
		}
	}
	t.Fatalf("no line for %s in:\n%s", name, out)
	return ""
}

// status shows what a member's worktree holds, as review counts it:
// alice's two commits, her file not committed, and whether her branch
// lands on the lead's as it is now (then, once main changes her line,
// that it conflicts, and in which file); bob, with no worktree, none.
func TestStatusShowsEachWorktreesWork(t *testing.T) {
	repo, _, vars := statusRepo(t)

	out, errs, code := ptRun(t, vars, "", "status", "--team", "t")
	if code != 0 {
		t.Fatalf("status: exit %d %s", code, errs)
	}
	if l := memberLine(t, out, "alice"); !strings.Contains(l, "paneteam/t/alice") || !strings.Contains(l, "ahead 2, uncommitted 1, lands cleanly on main") {
		t.Errorf("alice's line does not show her branch's work:\n%s", out)
	}
	if l := memberLine(t, out, "bob"); strings.Contains(l, "ahead") || strings.Contains(l, "lands") {
		t.Errorf("bob, with no worktree, shows work: %q", l)
	}

	out, errs, code = ptRun(t, vars, "", "status", "--team", "t", "--json")
	if code != 0 {
		t.Fatalf("status --json: exit %d %s", code, errs)
	}
	var teams []struct {
		Members []map[string]json.RawMessage `json:"members"`
	}
	if err := json.Unmarshal([]byte(out), &teams); err != nil || len(teams) != 1 {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	work := map[string]map[string]any{}
	for _, m := range teams[0].Members {
		var name string
		json.Unmarshal(m["name"], &name)
		if raw, ok := m["branchState"]; ok {
			var w map[string]any
			json.Unmarshal(raw, &w)
			work[name] = w
		}
	}
	a := work["alice"]
	if a == nil || a["ahead"] != 2.0 || a["uncommitted"] != 1.0 || a["clean"] != true || a["onto"] != "main" {
		t.Errorf("alice's branchState %v, want ahead 2, uncommitted 1, clean on main:\n%s", a, out)
	}
	for _, k := range []string{"conflictsWith", "conflictFiles", "leadConflicts"} {
		if _, ok := a[k]; !ok {
			t.Errorf("alice's branchState has no %q: %v", k, a)
		}
	}
	if w, ok := work["bob"]; ok {
		t.Errorf("bob, with no worktree, has a branchState: %v", w)
	}

	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\nLEAD\nthree\n"), 0o644)
	gitT(t, repo, "commit", "-q", "-am", "the lead changes line two")
	out, _, _ = ptRun(t, vars, "", "status", "--team", "t")
	if l := memberLine(t, out, "alice"); !strings.Contains(l, "conflicts on main (a.txt)") {
		t.Errorf("once main changed her line, alice's line does not say it conflicts in a.txt:\n%s", out)
	}
}

// The status line runs no git, whatever worktrees the team has: with a
// git first on PATH that fails and leaves a mark, status --format tmux
// still answers and the mark is not there; status itself does run it
// (so the stand-in would have caught the status line).
func TestStatusLineRunsNoGit(t *testing.T) {
	_, _, vars := statusRepo(t)
	bin := t.TempDir()
	mark := filepath.Join(t.TempDir(), "git-ran")
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"$@\" >> "+mark+"\nexit 1\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	out, errs, code := ptRun(t, vars, "", "status", "--team", "t", "--format", "tmux")
	if code != 0 || !strings.Contains(out, "t") {
		t.Fatalf("status --format tmux with a failing git: exit %d %q %s", code, out, errs)
	}
	if b, err := os.ReadFile(mark); err == nil {
		t.Fatalf("the status line ran git: %s", b)
	}
	if _, _, code := ptRun(t, vars, "", "status", "--team", "t"); code != 0 {
		t.Fatalf("status with a failing git: exit %d (it must still answer, without the work column)", code)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatal("status itself ran no git either: the stand-in catches nothing")
	}
}
