package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// 'paneteam claude --worktree' says at start what it makes of the folder
// it runs in, and tells the router to give worktrees.
func TestClaudeWorktreeSaysWhatItMakesOfTheFolder(t *testing.T) {
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\n"), 0o755)
	vars := map[string]string{"PATH": bin + ":/usr/bin:/bin", "HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir(),
		"PANETEAM_STATE_DIR": t.TempDir()}
	run := func(t *testing.T, vars map[string]string, args ...string) claudeDryRun {
		t.Helper()
		out, errs, code := ptRun(t, vars, "", append([]string{"claude", "--dry-run", "--json", "--offer", "none"}, args...)...)
		var d claudeDryRun
		if code != 0 || json.Unmarshal([]byte(out), &d) != nil {
			t.Fatalf("claude %v: exit %d\n%s%s", args, code, out, errs)
		}
		return d
	}
	worktreeSet := func(d claudeDryRun) bool {
		var rc struct{ Worktree bool }
		b, _ := os.ReadFile(filepath.Join(filepath.Dir(d.Env["CLAUDE_CODE_TEAMMATE_COMMAND"]), "router.json"))
		json.Unmarshal(b, &rc)
		return rc.Worktree
	}
	hasNote := func(d claudeDryRun, s string) bool {
		return strings.Contains(strings.Join(d.Notes, "\n"), s)
	}

	t.Chdir(t.TempDir())
	if d := run(t, vars, "--worktree"); !hasNote(d, "--worktree: ") || !hasNote(d, "is not in a git repository: teammates work in it as without worktrees") || !worktreeSet(d) {
		t.Errorf("outside a repository: notes %q, router worktree %v", d.Notes, worktreeSet(d))
	}
	if d := run(t, vars); hasNote(d, "--worktree") || worktreeSet(d) {
		t.Errorf("without --worktree: notes %q, router worktree %v", d.Notes, worktreeSet(d))
	}
	repo := testutil.GitRepo(t)
	gitT(t, repo, "checkout", "-q", "--detach")
	t.Chdir(repo)
	env := map[string]string{"PANETEAM_WORKTREE": "1"}
	for k, v := range vars {
		env[k] = v
	}
	if d := run(t, env); !hasNote(d, "--worktree: HEAD is detached at") || !worktreeSet(d) {
		t.Errorf("PANETEAM_WORKTREE=1 on a detached HEAD: notes %q, router worktree %v", d.Notes, worktreeSet(d))
	}
}

// What the router leaves behind removes an untouched worktree once its
// teammate's process ends; cleanup --orphans finishes one that was cut
// short; paneteam worktrees lists what stays and removes it only with
// --force while work would be lost.
func TestWorktreesAfterTheirTeammatesEnd(t *testing.T) {
	ctx := context.Background()
	root, vars := ptRootVars(t)
	state := t.TempDir()
	vars["PANETEAM_STATE_DIR"] = state
	vars["TMUX_TMPDIR"] = t.TempDir() // no tmux server of anyone else's is looked at
	repo := testutil.GitRepo(t)
	recs := worktree.OpenRecords(state)

	sleep := exec.Command("sleep", "1")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	go sleep.Wait()
	give := func(name string, pid int) *worktree.Worktree {
		wt, err := worktree.Give(ctx, recs, repo, root, "crew", name, pid)
		if err != nil {
			t.Fatal(err)
		}
		return wt
	}
	idle := give("idle", sleep.Process.Pid)
	// The reaper waits for the teammate's process, then removes.
	if _, errs, code := ptRun(t, vars, "", "worktrees", "--remove", idle.Path, "--after-pid", strconv.Itoa(sleep.Process.Pid)); code != 0 {
		t.Fatalf("reaper: exit %d %s", code, errs)
	}
	if _, err := os.Stat(idle.Path); !os.IsNotExist(err) {
		t.Errorf("the untouched worktree is still there after its teammate ended: %v", err)
	}

	const gone = 1 << 30
	cutShort := give("cut", gone)
	dirty := give("dirty", gone)
	os.WriteFile(filepath.Join(dirty.Path, "draft.txt"), []byte("x"), 0o644)
	out, errs, code := ptRun(t, vars, "", "cleanup", "--orphans")
	if code != 0 || !strings.Contains(out, "removed crew/cut's untouched worktree") {
		t.Errorf("cleanup --orphans: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(cutShort.Path); !os.IsNotExist(err) {
		t.Errorf("cleanup --orphans left the untouched worktree: %v", err)
	}

	out, _, _ = ptRun(t, vars, "", "worktrees")
	if !strings.Contains(out, "BRANCH") || !strings.Contains(out, "paneteam/crew/dirty") || strings.Contains(out, "cut") {
		t.Errorf("worktrees lists:\n%s", out)
	}
	if _, errs, code := ptRun(t, vars, "", "worktrees", "--remove", "crew/dirty"); code != 1 || !strings.Contains(errs, "uncommitted change") || !strings.Contains(errs, "--force") {
		t.Errorf("--remove of a worktree with work: exit %d %s", code, errs)
	}
	if _, errs, code := ptRun(t, vars, "", "worktrees", "--remove", "crew/dirty", "--force"); code != 0 {
		t.Errorf("--remove --force: exit %d %s", code, errs)
	}
	if _, err := os.Stat(dirty.Path); !os.IsNotExist(err) || gitT(t, repo, "branch", "--list", "paneteam/*") != "" {
		t.Errorf("after --force: %v, branches %q", err, gitT(t, repo, "branch", "--list", "paneteam/*"))
	}
	if out, _, _ := ptRun(t, vars, "", "worktrees", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("worktrees --json with none: %q", out)
	}
}
