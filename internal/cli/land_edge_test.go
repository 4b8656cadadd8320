package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// Two teammates that change the same 30 files besides a.txt: review's
// line, the refusal and the queue's table name ten and count the rest,
// so the person reads a few lines, not a list of every file.
func TestLandManyConflictingFilesStayReadable(t *testing.T) {
	_, vars, _ := msgTeam(t)
	_, recs := landRepo(t, vars, "alice", "bob")
	for _, n := range []string{"alice", "bob"} {
		for i := 0; i < 30; i++ {
			p := filepath.Join(recs[n].Path, "gen", fmt.Sprintf("f%02d.txt", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(n+"\n"), 0o644)
		}
		gitT(t, recs[n].Path, "add", ".")
		gitT(t, recs[n].Path, "commit", "-q", "-m", n+" makes 30 files")
	}
	out, _, _ := ptRun(t, vars, "", "review")
	if !strings.Contains(out, "alice conflicts with bob (files: a.txt, gen/f00.txt,") || !strings.Contains(out, "and 21 more)") {
		t.Errorf("review does not cut the 31 conflicting files short:\n%s", out)
	}
	if _, errs, code := ptRun(t, vars, "", "land", "alice"); code != 0 {
		t.Fatalf("land alice: %s", errs)
	}
	_, errs, code := ptRun(t, vars, "", "land", "bob")
	if code == 0 || !strings.Contains(errs, "in 31 file(s)") || !strings.Contains(errs, "and 21 more") || strings.Count(errs, "\n") > 4 {
		t.Errorf("land bob: exit %d, stderr:\n%s", code, errs)
	}
	out, _, _ = ptRun(t, vars, "", "land", "--all", "--dry-run")
	if !strings.Contains(out, "and 21 more") {
		t.Errorf("land --all --dry-run does not cut the files short:\n%s", out)
	}
}

// A lead on the teammate's own branch is refused with the switch to make
// and the command to run again.
func TestLandOnTheTeammatesOwnBranchNamesTheSwitch(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, recs := landRepo(t, vars, "alice")
	gitT(t, repo, "worktree", "remove", recs["alice"].Path)
	gitT(t, repo, "checkout", "-q", recs["alice"].Branch)
	_, errs, code := ptRun(t, vars, "", "land", "alice")
	if code == 0 || !strings.Contains(errs, "alice's own branch paneteam/t/alice") || !strings.Contains(errs, "git switch BRANCH") || !strings.Contains(errs, "paneteam land --team t alice") {
		t.Errorf("land onto alice's own branch: exit %d, stderr %q", code, errs)
	}
	gitT(t, repo, "rev-parse", "--verify", "refs/heads/paneteam/t/alice")
}

// A teammate moved a submodule to a commit the lead's checkout lacks:
// the refusal prints the fetch that brings it; after it, the land moves
// the pointer and the checkout, and git status is clean.
func TestLandSubmoduleRefusalNamesTheFetch(t *testing.T) {
	_, vars, _ := msgTeam(t)
	repo, _ := landRepo(t, vars)
	sub := t.TempDir()
	gitT(t, sub, "init", "-q", "-b", "main")
	gitT(t, sub, "commit", "-q", "--allow-empty", "-m", "lib one")
	// A submodule's path is the teammate's choice: one a shell would
	// split and run.
	lib := "lib $(touch pwned)"
	gitT(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, lib)
	gitT(t, repo, "commit", "-q", "-m", "lib")
	wt, err := worktree.Create(context.Background(), repo, "t", "alice")
	if err != nil {
		t.Fatal(err)
	}
	r := worktree.Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch, Base: wt.Base, Team: "t", Member: "alice"}
	if err := worktree.OpenRecords(vars["PANETEAM_STATE_DIR"]).Write(r); err != nil {
		t.Fatal(err)
	}
	gitT(t, wt.Path, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init")
	gitT(t, filepath.Join(wt.Path, lib), "commit", "-q", "--allow-empty", "-m", "lib two")
	two := gitT(t, filepath.Join(wt.Path, lib), "rev-parse", "HEAD")
	gitT(t, wt.Path, "commit", "-q", "-am", "alice moves lib")

	_, errs, code := ptRun(t, vars, "", "land", "alice")
	fetch := fmt.Sprintf("git -C '%s' fetch '%s' %s", filepath.Join(repo, lib), filepath.Join(wt.Path, lib), two)
	if code == 0 || !strings.Contains(errs, "submodule lib") || !strings.Contains(errs, fetch) || !strings.Contains(errs, "paneteam land --team t alice") {
		t.Fatalf("land of a submodule commit the lead lacks: exit %d, stderr %q; want %q", code, errs, fetch)
	}
	_, errs, code = ptRun(t, vars, "", "land", "--all")
	if code == 0 || !strings.Contains(errs, fetch) || !strings.Contains(errs, "then: paneteam land --all") {
		t.Fatalf("land --all of a submodule commit the lead lacks: exit %d, stderr %q; want %q", code, errs, fetch)
	}
	run := t.TempDir()
	cmd := exec.Command("sh", "-c", fetch)
	cmd.Dir = run
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", fetch, err, out)
	}
	if _, err := os.Stat(filepath.Join(run, "pwned")); err == nil {
		t.Fatalf("pasting %q ran the submodule's name as a command", fetch)
	}
	if out, errs, code := ptRun(t, vars, "", "land", "alice"); code != 0 {
		t.Fatalf("land after the fetch: exit %d\n%s%s", code, out, errs)
	}
	if got := gitT(t, filepath.Join(repo, lib), "rev-parse", "HEAD"); got != two {
		t.Errorf("the lead's lib is at %s, want %s", got, two)
	}
	if st := gitT(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("git status after the land: %q", st)
	}
}
