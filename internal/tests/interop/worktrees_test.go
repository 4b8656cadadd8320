package interop

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// git runs git in dir as the person would, failing the test on error.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// personState is what the person's checkout must keep: HEAD, the index,
// git status, their branches and a tracked file's content.
func personState(t *testing.T, dir string) string {
	t.Helper()
	var branches []string
	for _, b := range strings.Split(gitIn(t, dir, "branch", "--format=%(refname:short) %(objectname)"), "\n") {
		if !strings.HasPrefix(b, "paneteam/") {
			branches = append(branches, b)
		}
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	return strings.Join([]string{
		"HEAD " + gitIn(t, dir, "rev-parse", "HEAD") + " " + gitIn(t, dir, "symbolic-ref", "HEAD"),
		"index\n" + gitIn(t, dir, "ls-files", "--stage"),
		"status\n" + gitIn(t, dir, "status", "--porcelain", "--untracked-files=all"),
		"branches\n" + strings.Join(branches, "\n"),
		"README.md\n" + string(readme),
	}, "\n")
}

// TestClaudeLeadTeammatesInWorktrees: a person runs 'paneteam claude
// --worktree' (here PANETEAM_WORKTREE=1) in a repository with work of
// their own in progress, and Claude's lead spawns three teammates. Each
// runs in its own worktree on its own branch, and its model is told that branch. After the lead's
// exit the teammate that committed keeps its worktree and branch, listed
// by 'paneteam worktrees --json'; so does the one with an uncommitted
// file; the untouched one is gone with its branch within seconds. The
// person's checkout is as it was throughout.
func TestClaudeLeadTeammatesInWorktrees(t *testing.T) {
	l := startShimLeadWith(t, "", true, nil, nil, []string{"PANETEAM_WORKTREE=1"})
	repo := l.Cwd
	gitIn(t, repo, "init", "-q", "-b", "main")
	for _, f := range []string{"README.md", "src/main.go"} {
		os.MkdirAll(filepath.Dir(filepath.Join(repo, f)), 0o755)
		os.WriteFile(filepath.Join(repo, f), []byte(f+"\n"), 0o644)
	}
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "first")
	// The person's own work in progress: a change, a staged file, an
	// untracked one.
	os.WriteFile(filepath.Join(repo, "README.md"), []byte("edited by the person\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "staged.txt"), []byte("s\n"), 0o644)
	gitIn(t, repo, "add", "staged.txt")
	os.WriteFile(filepath.Join(repo, "scratch.txt"), []byte("u\n"), 0o644)
	before := personState(t, repo)
	base := gitIn(t, repo, "rev-parse", "HEAD")

	// The lead runs in the repository's top folder; its teammates start
	// in the same folder of their worktrees.
	names := []string{"alice", "bob", "carol"}
	l.spawn(t, names...)
	cfg := mustConfig(t, l.Session)
	wt := func(n string) string { return filepath.Join(repo, ".paneteam", "worktrees", cfg.Name, n) }
	branch := func(n string) string { return "paneteam/" + cfg.Name + "/" + n }
	srv := l.server(true)
	l.teammatePanes(t, srv, names...)
	for _, n := range names {
		pids := agentProcs(n + "@" + cfg.Name)
		if len(pids) != 1 {
			t.Fatalf("%s: processes %v", n, pids)
		}
		cwd, err := os.Readlink("/proc/" + strconv.Itoa(pids[0]) + "/cwd")
		if err != nil || cwd != wt(n) {
			t.Errorf("%s's Claude runs in %q (%v), want its worktree %s", n, cwd, err, wt(n))
		}
		if got := gitIn(t, wt(n), "symbolic-ref", "--short", "HEAD"); got != branch(n) {
			t.Errorf("%s's worktree is on %s, want %s", n, got, branch(n))
		}
		if got := gitIn(t, wt(n), "rev-parse", "HEAD"); got != base {
			t.Errorf("%s's worktree starts at %s, want the lead's HEAD %s", n, got, base)
		}
		told := false
		for _, r := range l.api.Requests() {
			if strings.Contains(r.TailText(), "You are "+n+";") && strings.Contains(r.SystemText(), "on the branch "+branch(n)) {
				told = true
			}
		}
		if !told {
			t.Errorf("%s's model was not told its branch %s in its system prompt", n, branch(n))
		}
	}
	// Claude Code removes the worktrees config.json names when it deletes
	// its team: paneteam writes none there.
	if b, _ := os.ReadFile(filepath.Join(l.TeamDir(), "config.json")); strings.Contains(string(b), "worktree") {
		t.Errorf("config.json names a worktree:\n%s", b)
	}
	// status shows each member's branch.
	var teams []struct {
		Members []struct{ Name, Branch string }
	}
	if err := json.Unmarshal([]byte(ptOK(t, l.Session, "status", "--team", cfg.Name, "--json")), &teams); err != nil || len(teams) != 1 {
		t.Fatalf("status --json: %v %+v", err, teams)
	}
	for _, m := range teams[0].Members {
		if want := map[bool]string{true: branch(m.Name)}[m.Name != "team-lead"]; m.Branch != want {
			t.Errorf("status shows %s's branch as %q, want %q", m.Name, m.Branch, want)
		}
	}
	if out := ptOK(t, l.Session, "status", "--team", cfg.Name); !strings.Contains(out, "BRANCH") || !strings.Contains(out, branch("bob")) {
		t.Errorf("status does not show the branches:\n%s", out)
	}
	if got := personState(t, repo); got != before {
		t.Errorf("the person's checkout changed while teammates ran:\n%s\nwas:\n%s", got, before)
	}

	// alice commits, carol leaves a file uncommitted, bob does nothing.
	os.WriteFile(filepath.Join(wt("alice"), "src", "fix.go"), []byte("package main\n"), 0o644)
	gitIn(t, wt("alice"), "add", ".")
	gitIn(t, wt("alice"), "commit", "-q", "-m", "alice's fix")
	os.WriteFile(filepath.Join(wt("carol"), "draft.txt"), []byte("half done\n"), 0o644)

	var agents []string
	for _, n := range names {
		agents = append(agents, n+"@"+cfg.Name)
	}
	l.exitLead(t, srv, true, agents...)
	testutil.Eventually(t, 10*time.Second, "bob's untouched worktree and branch to go", func() bool {
		_, err := os.Stat(wt("bob"))
		return os.IsNotExist(err) && gitIn(t, repo, "branch", "--list", branch("bob")) == ""
	})
	for _, n := range []string{"alice", "carol"} {
		if _, err := os.Stat(wt(n)); err != nil {
			t.Errorf("%s's worktree with work is gone: %v", n, err)
		}
	}
	if got := gitIn(t, repo, "log", "-1", "--format=%s", branch("alice")); got != "alice's fix" {
		t.Errorf("alice's branch ends with %q, want her commit", got)
	}

	var rows []struct {
		Team, Member, Branch, Path string
		Ahead, Changed             int
		Running                    bool
	}
	out := ptOK(t, l.Session, "worktrees", "--json")
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("worktrees --json: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.Member] = r.Branch + " " + r.Path + " ahead " + strconv.Itoa(r.Ahead) + " changed " + strconv.Itoa(r.Changed) + " running " + strconv.FormatBool(r.Running)
	}
	want := map[string]string{
		"alice": branch("alice") + " " + wt("alice") + " ahead 1 changed 0 running false",
		"carol": branch("carol") + " " + wt("carol") + " ahead 0 changed 1 running false",
	}
	if len(got) != len(want) || got["alice"] != want["alice"] || got["carol"] != want["carol"] {
		t.Errorf("worktrees --json lists %v, want %v", got, want)
	}

	// Removing one with work is refused; --force drops it.
	if _, errOut, code := pt(t, l.Session, "worktrees", "--remove", cfg.Name+"/alice"); code != 1 || !strings.Contains(errOut, "1 commit(s) on no other branch") || !strings.Contains(errOut, "--force") {
		t.Errorf("worktrees --remove of alice's: exit %d, %s; want a refusal naming her commit and --force", code, errOut)
	}
	ptOK(t, l.Session, "worktrees", "--remove", cfg.Name+"/carol", "--force")
	if _, err := os.Stat(wt("carol")); !os.IsNotExist(err) || gitIn(t, repo, "branch", "--list", branch("carol")) != "" {
		t.Errorf("carol's worktree or branch is left after --force: %v", err)
	}
	if got := personState(t, repo); got != before {
		t.Errorf("the person's checkout changed:\n%s\nwas:\n%s", got, before)
	}
}

// TestClaudeLeadCodexInWorktree: under 'paneteam claude --worktree' a
// Codex teammate Claude's lead asks for runs in its own worktree too, is
// told its branch in its first prompt (before the lead's, read from its
// inbox), and its untouched worktree is gone after the lead's exit.
func TestClaudeLeadCodexInWorktree(t *testing.T) {
	codexBin := agenttest.Install(t, agenttest.Codex)
	testutil.MCPBinary(t)
	model := newRoutedCodex(t)
	l := startShimLeadWith(t, "", true, nil, []string{codexBin}, []string{"FAKE_API_KEY=test-key", "PANETEAM_WORKTREE=1"})
	agenttest.PersonConfig(t, agenttest.Codex, l.Home, model.Model)
	repo := l.Cwd
	os.WriteFile(filepath.Join(repo, "parser.go"), []byte("package parser\n"), 0o644)
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "first")
	before := personState(t, repo)
	cfg := mustConfig(t, l.Session)

	after := l.api.LastSeq()
	l.api.On("get a codex reviewer",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "codex reviewer", "prompt": "Review parser.go.",
			"name": "coder", "subagent_type": "codex"})),
		claudetest.Text("Started coder."))
	l.Submit(t, wait, "get a codex reviewer")
	l.api.WaitMessages(t, wait, after, "Spawned successfully")
	testutil.Eventually(t, wait, "Codex's model to read the lead's prompt", func() bool { return model.get(&model.prompt) != "" })

	tree := filepath.Join(repo, ".paneteam", "worktrees", cfg.Name, "coder")
	branch := "paneteam/" + cfg.Name + "/coder"
	pids := codexProcs(l.ConfigDir)
	if len(pids) == 0 {
		t.Fatal("no Codex process of coder's")
	}
	for _, pid := range pids {
		if cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd"); cwd != tree {
			t.Errorf("Codex process %d runs in %q (%v), want its worktree %s", pid, cwd, err, tree)
		}
	}
	told := false
	for _, r := range model.Requests() {
		for _, u := range r.UserTexts() {
			if strings.Contains(u, "on the branch "+branch) && strings.Contains(u, "read_inbox") {
				told = true
			}
		}
	}
	if !told {
		t.Errorf("Codex's model was not told its branch %s", branch)
	}

	l.exitLead(t, l.server(true), true, "coder@"+cfg.Name)
	testutil.Eventually(t, 10*time.Second, "coder's untouched worktree and branch to go", func() bool {
		_, err := os.Stat(tree)
		return os.IsNotExist(err) && gitIn(t, repo, "branch", "--list", branch) == ""
	})
	if got := personState(t, repo); got != before {
		t.Errorf("the person's checkout changed:\n%s\nwas:\n%s", got, before)
	}
}
