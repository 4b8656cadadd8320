package interop

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// landRepoIn makes dir the person's repository on main with README.md,
// and a git identity of its own (the teammates' worktrees share its
// config), so a teammate's `git commit` and the lead's merge commit work
// in a scratch HOME.
func landRepoIn(t *testing.T, dir string) {
	t.Helper()
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "config", "user.name", "Person")
	gitIn(t, dir, "config", "user.email", "person@example.com")
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("the project\n"), 0o644)
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "first")
}

// reviewLine is one teammate in `paneteam review --json`.
type reviewLine struct {
	Name          string   `json:"name"`
	Branch        string   `json:"branch"`
	Ahead         int      `json:"ahead"`
	Uncommitted   int      `json:"uncommitted"`
	Clean         bool     `json:"clean"`
	Running       bool     `json:"running"`
	ConflictsWith []string `json:"conflictsWith"`
	ConflictFiles []string `json:"conflictFiles"`
}

// reviewOf is name's line of `paneteam review --json` as out printed it
// (the test fails when it has none).
func reviewOf(t *testing.T, out, name string) reviewLine {
	t.Helper()
	var rows []reviewLine
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	for _, r := range rows {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("review --json lists no %s:\n%s", name, out)
	return reviewLine{}
}

// checkLanded checks what `paneteam land NAME` printed and did in repo:
// file is on the lead's branch (main) with content, the teammate's
// worktree and branch are gone, and the printed undo, run, puts main
// back at before (where it was before the land) and the teammate's
// branch back at tip, its commit.
func checkLanded(t *testing.T, repo, before, out, file, content, tree, branch, tip string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(repo, file)); err != nil || string(b) != content {
		t.Errorf("%s in the lead's tree after land: %q, %v; want %q", file, b, err, content)
	}
	if got := gitIn(t, repo, "show", "main:"+file); got != strings.TrimSpace(content) {
		t.Errorf("main has %s as %q, want %q", file, got, content)
	}
	if st := gitIn(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("the lead's tree is not clean after land:\n%s", st)
	}
	if _, err := os.Stat(tree); !os.IsNotExist(err) {
		t.Errorf("the landed teammate's worktree %s stays (%v)", tree, err)
	}
	if b := gitIn(t, repo, "branch", "--list", branch); b != "" {
		t.Errorf("the landed teammate's branch stays: %s", b)
	}
	i := strings.Index(out, "undo: ")
	if i < 0 {
		t.Fatalf("land printed no undo:\n%s", out)
	}
	undo := strings.TrimSpace(strings.SplitN(out[i+len("undo: "):], "\n", 2)[0])
	if b, err := exec.Command("sh", "-c", undo).CombinedOutput(); err != nil {
		t.Fatalf("the printed undo %q: %v\n%s", undo, err, b)
	}
	if head := gitIn(t, repo, "rev-parse", "HEAD"); head != before {
		t.Errorf("after the undo main is at %s, want %s (where it was before the land)", head, before)
	}
	if _, err := os.Stat(filepath.Join(repo, file)); !os.IsNotExist(err) {
		t.Errorf("after the undo %s is still in the lead's tree (%v)", file, err)
	}
	if got := gitIn(t, repo, "rev-parse", "refs/heads/"+branch); got != tip {
		t.Errorf("after the undo %s is at %s, want the teammate's commit %s", branch, got, tip)
	}
}
