package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// codexShell is a call of Codex's own shell tool running cmd, in the form
// the request offers it (Codex names its shell tool by model family:
// shell_command takes a string, exec_command a cmd, shell an argv).
func codexShell(r *agenttest.Request, cmd string) []agenttest.Output {
	offered := map[string]bool{}
	tools, _ := r.JSON["tools"].([]any)
	for _, tool := range tools {
		if m, ok := tool.(map[string]any); ok {
			name, _ := m["name"].(string)
			offered[name] = true
		}
	}
	switch {
	case offered["shell_command"]:
		return agenttest.CallTool("", "shell_command", map[string]any{"command": cmd})
	case offered["exec_command"]:
		return agenttest.CallTool("", "exec_command", map[string]any{"cmd": cmd})
	}
	return agenttest.CallTool("", "shell", map[string]any{"command": []string{"bash", "-lc", cmd}})
}

// TestLandCodexTeammateOfClaudeLead: under 'paneteam claude --worktree'
// Claude's lead starts a Codex teammate, whose model writes a file and
// commits it in its worktree with Codex's shell tool. review --json
// shows it one commit ahead and clean; after the lead's exit (Codex ends
// with it, and the team is gone) it is still reviewed from paneteam's
// record and `land coder --rebase` puts its commit on main and removes
// its worktree and branch; the printed undo restores both.
func TestLandCodexTeammateOfClaudeLead(t *testing.T) {
	codexBin := agenttest.Install(t, agenttest.Codex)
	testutil.MCPBinary(t)
	const content = "parsed by coder\n"
	commit := "printf 'parsed by coder\\n' > parsed.txt && git add parsed.txt && git commit -q -m 'coder adds parsed.txt' && git log --oneline -1"
	var mu sync.Mutex
	var shellOut string
	model := agenttest.NewModel(t, func(r *agenttest.Request) []agenttest.Output {
		if !r.OffersTool("read_inbox") {
			return agenttest.Text("Teammate work") // a side request (a title)
		}
		mu.Lock()
		defer mu.Unlock()
		last := r.Last()
		with := func(id string, out []agenttest.Output) []agenttest.Output { out[0].Call.ID = id; return out }
		switch {
		case last.CallID == "call_prompt":
			return with("call_commit", codexShell(r, commit))
		case last.CallID == "call_commit":
			shellOut = last.ToolOutput
			return agenttest.Text("Committed parsed.txt.")
		case last.CallID == "" && strings.Contains(last.UserText, "read_inbox"):
			return with("call_prompt", agenttest.CallTool("mcp__team", "read_inbox", map[string]any{}))
		}
		return agenttest.Text("ok")
	})
	l := startShimLeadWith(t, "", true, nil, []string{codexBin}, []string{"FAKE_API_KEY=test-key", "PANETEAM_WORKTREE=1"})
	agenttest.PersonConfig(t, agenttest.Codex, l.Home, model)
	repo := l.Cwd
	landRepoIn(t, repo)
	cfg := mustConfig(t, l.Session)
	tree := filepath.Join(repo, ".paneteam", "worktrees", cfg.Name, "coder")
	branch := "paneteam/" + cfg.Name + "/coder"

	after := l.api.LastSeq()
	l.api.On("get a codex coder",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "codex coder", "prompt": "Write parsed.txt and commit it.",
			"name": "coder", "subagent_type": "codex"})),
		claudetest.Text("Started coder."))
	l.Submit(t, wait, "get a codex coder")
	l.api.WaitMessages(t, wait, after, "Spawned successfully")
	testutil.Eventually(t, wait, "coder's commit on its branch", func() bool {
		out, _, code := pt(t, l.Session, "review", "--json")
		return code == 0 && strings.Contains(out, `"ahead": 1`)
	})
	defer func() {
		mu.Lock()
		t.Logf("Codex's shell tool answered: %q", shellOut)
		mu.Unlock()
	}()
	tip := gitIn(t, repo, "rev-parse", "refs/heads/"+branch)
	if got := gitIn(t, repo, "log", "-1", "--format=%s", branch); got != "coder adds parsed.txt" {
		t.Fatalf("coder's branch ends with %q, want its commit", got)
	}
	if r := reviewOf(t, ptOK(t, l.Session, "review", "--json"), "coder"); r.Branch != branch || r.Ahead != 1 || !r.Clean || r.Uncommitted != 0 {
		t.Errorf("review --json while coder runs: %+v; want branch %s, ahead 1, clean, nothing uncommitted", r, branch)
	}

	l.exitLead(t, l.server(true), true)
	testutil.Eventually(t, 30*time.Second, "coder's Codex to end with the lead", func() bool { return len(codexProcs(l.ConfigDir)) == 0 })
	if _, err := os.Stat(tree); err != nil {
		t.Fatalf("coder's worktree with a commit went with the lead: %v", err)
	}
	testutil.Eventually(t, 15*time.Second, "review to see coder has ended", func() bool {
		return !reviewOf(t, ptOK(t, l.Session, "review", "--json"), "coder").Running
	})
	before := gitIn(t, repo, "rev-parse", "HEAD")
	out, errOut, code := pt(t, l.Session, "land", "coder", "--rebase")
	if code != 0 || !strings.Contains(out, "landed coder (rebase) on main") {
		t.Fatalf("land coder --rebase: exit %d\n%s%s", code, out, errOut)
	}
	if got := gitIn(t, repo, "log", "-1", "--format=%s", "main"); got != "coder adds parsed.txt" {
		t.Errorf("main ends with %q after a rebase land, want coder's commit replayed", got)
	}
	checkLanded(t, repo, before, out, "parsed.txt", content, tree, branch, tip)
}

// TestLandWrappedProgram: a plain program run as a teammate in its own
// worktree (spawn-pane --worktree -- sh -c '... git commit ...') is
// reviewed and landed as an agent is: once it has ended, review --json
// shows its commit, `land wrap --squash` makes one commit of it on main
// and removes its worktree and branch, and the printed undo restores
// both.
func TestLandWrappedProgram(t *testing.T) {
	lt := newLedTeam(t, "wrapped")
	repo := lt.s.Cwd
	landRepoIn(t, repo)
	tree := filepath.Join(repo, ".paneteam", "worktrees", lt.name, "wrap")
	branch := "paneteam/" + lt.name + "/wrap"
	endLedMember(t, lt, "wrap")
	// It works a moment before it commits, as a program does: one that
	// ends within spawn-pane's first look at its pane is a failed start.
	lt.ok(t, "spawn-pane", "--team", lt.name, "--name", "wrap", "--worktree", "--", "sh", "-c",
		"sleep 0.5 && printf 'made by a script\\n' > made.txt && git add made.txt && git commit -q -m 'wrap adds made.txt' && echo one >> made.txt && git commit -q -am 'wrap adds a line'")
	const want = "made by a script\none\n"
	testutil.Eventually(t, 30*time.Second, "the program to commit twice and end", func() bool {
		out, _, code := lt.run(t, nil, "review", "--json")
		return code == 0 && strings.Contains(out, `"name": "wrap"`) && !reviewOf(t, out, "wrap").Running &&
			gitIn(t, repo, "log", "-1", "--format=%s", branch) == "wrap adds a line"
	})
	if r := reviewOf(t, lt.ok(t, "review", "--json"), "wrap"); r.Branch != branch || r.Ahead != 2 || !r.Clean || r.Uncommitted != 0 {
		t.Errorf("review --json: %+v; want branch %s, ahead 2, clean, nothing uncommitted", r, branch)
	}
	tip := gitIn(t, repo, "rev-parse", "refs/heads/"+branch)
	before := gitIn(t, repo, "rev-parse", "HEAD")
	out, errOut, code := lt.run(t, nil, "land", "wrap", "--squash")
	if code != 0 || !strings.Contains(out, "landed wrap (squash) on main") {
		t.Fatalf("land wrap --squash: exit %d\n%s%s", code, out, errOut)
	}
	if n := gitIn(t, repo, "rev-list", "--count", before+"..main"); n != "1" {
		t.Errorf("a squash land made %s commits on main, want 1", n)
	}
	checkLanded(t, repo, before, out, "made.txt", want, tree, branch, tip)
}

// TestLandOpenCodeTeammate: a person leads an OpenCode teammate from
// paneteam in a worktree of its own (spawn-pane --agent opencode
// --worktree); its model writes a file and commits it with OpenCode's
// bash tool. review --json shows it one commit ahead and clean while it
// runs; `land coder --stop` asks it to shut down, waits for it to end,
// lands the commit and removes its worktree and branch; the printed
// undo restores both.
func TestLandOpenCodeTeammate(t *testing.T) {
	bin := agenttest.Install(t, agenttest.OpenCode)
	testutil.MCPBinary(t)
	commit := "printf 'coded by opencode\\n' > coded.txt && git add coded.txt && git commit -q -m 'coder adds coded.txt' && git log --oneline -1"
	model := agenttest.NewModel(t, func(r *agenttest.Request) []agenttest.Output {
		if !r.OffersTool("send_message") {
			return agenttest.Text("Teammate work")
		}
		last := r.Last()
		switch {
		case last.CallID == "call_commit" || last.ToolName == "bash":
			return agenttest.Text("Committed coded.txt.")
		case strings.Contains(last.UserText, "You are coder"):
			out := agenttest.CallTool("", "bash", map[string]any{"command": commit, "description": "write and commit coded.txt"})
			out[0].Call.ID = "call_commit"
			return out
		}
		return agenttest.Text("ok")
	})
	lt := newLedTeamEnv(t, "agents", append(agenttest.PersonEnv(agenttest.OpenCode, model),
		"PATH="+bin+":"+os.Getenv("PATH"), "COLORTERM=truecolor"))
	agenttest.PersonConfig(t, agenttest.OpenCode, lt.s.Home, model)
	repo := lt.s.Cwd
	landRepoIn(t, repo)
	tree := filepath.Join(repo, ".paneteam", "worktrees", lt.name, "coder")
	branch := "paneteam/" + lt.name + "/coder"
	endLedMember(t, lt, "coder")
	spawned := time.Now()
	lt.ok(t, "spawn-pane", "--team", lt.name, "--name", "coder", "--agent", "opencode", "--worktree",
		"--permission-mode", "bypassPermissions", "--prompt", "Write coded.txt and commit it.")
	defer func() {
		if t.Failed() {
			t.Logf("coder's screen:\n%s", lt.s.PaneScreen(lt.pane("coder")))
		}
	}()
	testutil.Eventually(t, 120*time.Second, "coder's commit on its branch", func() bool {
		out, _ := exec.Command("git", "-C", repo, "log", "-1", "--format=%s", branch).Output()
		return strings.TrimSpace(string(out)) == "coder adds coded.txt"
	})
	t.Logf("coder committed %s after the spawn", time.Since(spawned).Round(time.Millisecond))
	tip := gitIn(t, repo, "rev-parse", "refs/heads/"+branch)
	if r := reviewOf(t, lt.ok(t, "review", "--json"), "coder"); r.Branch != branch || r.Ahead != 1 || !r.Clean || r.Uncommitted != 0 || !r.Running {
		t.Errorf("review --json while coder runs: %+v; want branch %s, ahead 1, clean, nothing uncommitted, running", r, branch)
	}
	before := gitIn(t, repo, "rev-parse", "HEAD")
	stopped := time.Now()
	out, errOut, code := lt.run(t, nil, "land", "coder", "--stop")
	t.Logf("land --stop took %s", time.Since(stopped).Round(time.Millisecond))
	if code != 0 || !strings.Contains(out, "landed coder (merge) on main") || !strings.Contains(errOut, "coder has shut down") {
		t.Fatalf("land coder --stop: exit %d\n%s%s", code, out, errOut)
	}
	checkLanded(t, repo, before, out, "coded.txt", "coded by opencode\n", tree, branch, tip)
}
