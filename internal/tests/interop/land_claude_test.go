package interop

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// TestLandRealClaudeTeammate: a person leads a real Claude Code teammate
// from paneteam in a worktree of its own (spawn-pane --claude
// --worktree). Its model writes a file and commits it with its Bash
// tool. While it runs, `paneteam review --json` shows it one commit
// ahead and landing cleanly, and a `review --comment FILE:LINE TEXT`
// reaches its model quoting the line. After `paneteam shutdown`,
// `paneteam land alice` puts the file on main and removes the worktree
// and branch; the printed undo brings both back.
func TestLandRealClaudeTeammate(t *testing.T) {
	lt := newLedTeam(t, "landing")
	repo := lt.s.Cwd
	landRepoIn(t, repo)
	tree := filepath.Join(repo, ".paneteam", "worktrees", lt.name, "alice")
	branch := "paneteam/" + lt.name + "/alice"
	const content = "hello from alice\n"
	commit := "printf 'hello from alice\\n' > hello.txt && git add hello.txt && git commit -q -m 'alice adds hello.txt' && git log --oneline -1"

	// The model: alice's first turn commits; a shutdown request is
	// approved.
	requestID := regexp.MustCompile(`"requestId":"(shutdown-[0-9]+@alice)"`)
	var mu sync.Mutex
	approved := false
	lt.api.Script(func(r *claudetest.Request) (claudetest.Reply, bool) {
		m := requestID.FindStringSubmatch(r.TailText())
		mu.Lock()
		defer mu.Unlock()
		if m == nil || approved {
			return claudetest.Reply{}, false
		}
		approved = true
		return claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "team-lead",
			"message": map[string]any{"type": "shutdown_response", "request_id": m[1], "approve": true}})), true
	})
	lt.api.On("You are alice: commit hello.txt.",
		claudetest.Calls(claudetest.Tool("Bash", map[string]any{"command": commit, "description": "write and commit hello.txt"})),
		claudetest.Text("Committed hello.txt."))
	lt.spawnClaude(t, "alice", "bypassPermissions", "You are alice: commit hello.txt.", "--worktree")
	lt.api.WaitMessages(t, wait, 0, "alice adds hello.txt") // the commit's tool result
	tip := gitIn(t, repo, "rev-parse", "refs/heads/"+branch)
	if got := gitIn(t, repo, "log", "-1", "--format=%s", branch); got != "alice adds hello.txt" {
		t.Fatalf("alice's branch ends with %q, want her commit", got)
	}

	t.Run("review shows the running teammate one commit ahead, clean", func(t *testing.T) {
		r := reviewOf(t, lt.ok(t, "review", "--json"), "alice")
		if r.Branch != branch || r.Ahead != 1 || r.Uncommitted != 0 || !r.Clean || !r.Running || len(r.ConflictsWith) != 0 {
			t.Errorf("review --json: %+v; want branch %s, ahead 1, uncommitted 0, clean, running, no conflicts", r, branch)
		}
		if diff := lt.ok(t, "review", "alice"); !strings.Contains(diff, "+hello from alice") {
			t.Errorf("review alice does not show her change:\n%s", diff)
		}
	})

	t.Run("a comment reaches the teammate's model with the quoted line", func(t *testing.T) {
		after := lt.api.LastSeq()
		out := lt.ok(t, "review", "alice", "--comment", "hello.txt:1", "say who you greet")
		if !strings.Contains(out, "sent alice 1 comment(s)") {
			t.Errorf("review --comment printed %q", out)
		}
		got := lt.api.WaitMessages(t, wait, after, "say who you greet")
		text := got.TailText()
		if !strings.Contains(text, "hello.txt:1: say who you greet") || !strings.Contains(text, ">    1 | hello from alice") {
			t.Errorf("alice's model was shown:\n%s\nwant the comment and the quoted line 1 of hello.txt", text)
		}
		if !strings.Contains(text, `teammate_id="team-lead"`) || strings.Contains(text, `verified="false"`) {
			t.Errorf("alice's model was shown:\n%s\nwant the comment from team-lead, signed (not verified=\"false\")", text)
		}
	})

	t.Run("after shutdown, land takes the commit and removes the worktree; undo restores", func(t *testing.T) {
		pid, _ := claudeTeammate(t, lt.s, lt.name, "alice")
		if out, errOut, code := lt.run(t, nil, "shutdown", "--team", lt.name, "--name", "alice", "--timeout", "60s"); code != 0 {
			t.Fatalf("shutdown alice: exit %d\n%s%s", code, out, errOut)
		}
		lt.s.Wait(t, wait, "alice's claude to exit", func() bool { return syscall.Kill(pid, 0) != nil || isZombie(pid) })
		testutil.Eventually(t, wait, "review to see alice has ended", func() bool {
			return !reviewOf(t, lt.ok(t, "review", "--json"), "alice").Running
		})
		before := gitIn(t, repo, "rev-parse", "HEAD")
		out, errOut, code := lt.run(t, nil, "land", "alice")
		if code != 0 || !strings.Contains(out, "landed alice (merge) on main") {
			t.Fatalf("land alice: exit %d\n%s%s", code, out, errOut)
		}
		checkLanded(t, repo, before, out, "hello.txt", content, tree, branch, tip)
		if t.Failed() {
			t.Logf("land printed:\n%s%s", out, errOut)
		}
	})
}

// TestLandClaudeTeammateOfClaudeLead: under 'paneteam claude --worktree'
// (here PANETEAM_WORKTREE=1) Claude's lead starts a teammate whose model
// commits a file in its worktree with its Bash tool. review --json shows
// it one commit ahead and clean; a comment, sent under the person's own
// name in this team Claude leads, reaches its model quoting the line.
// After the lead's exit (the teammate ends with it and the team is
// gone), `paneteam land bob` takes the commit from paneteam's record and
// removes the worktree and branch; the printed undo brings both back.
func TestLandClaudeTeammateOfClaudeLead(t *testing.T) {
	l := startShimLeadWith(t, "", true, nil, nil, []string{"PANETEAM_WORKTREE=1"})
	repo := l.Cwd
	landRepoIn(t, repo)
	cfg := mustConfig(t, l.Session)
	tree := filepath.Join(repo, ".paneteam", "worktrees", cfg.Name, "bob")
	branch := "paneteam/" + cfg.Name + "/bob"
	const content = "notes by bob\n"
	const prompt = "You are bob: commit notes.txt."
	commit := "printf 'notes by bob\\n' > notes.txt && git add notes.txt && git commit -q -m 'bob adds notes.txt' && git log --oneline -1"

	l.api.On(prompt,
		claudetest.Calls(claudetest.Tool("Bash", map[string]any{"command": commit, "description": "write and commit notes.txt"})),
		claudetest.Text("Committed notes.txt."))
	after := l.api.LastSeq()
	l.api.On("start teammate bob",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "helper bob", "prompt": prompt, "name": "bob"})),
		claudetest.Text("Started bob."))
	l.Submit(t, wait, "start teammate bob")
	l.api.WaitMessages(t, wait, after, "Spawned successfully")
	l.api.WaitMessages(t, wait, after, "bob adds notes.txt") // the commit's tool result
	tip := gitIn(t, repo, "rev-parse", "refs/heads/"+branch)

	if r := reviewOf(t, ptOK(t, l.Session, "review", "--json"), "bob"); r.Branch != branch || r.Ahead != 1 || r.Uncommitted != 0 || !r.Clean || !r.Running {
		t.Errorf("review --json while bob runs: %+v; want branch %s, ahead 1, nothing uncommitted, clean, running", r, branch)
	}
	after = l.api.LastSeq()
	ptOK(t, l.Session, "review", "bob", "--comment", "notes.txt:1", "name the notes")
	got := l.api.WaitMessages(t, wait, after, "name the notes")
	if text := got.TailText(); !strings.Contains(text, "notes.txt:1: name the notes") || !strings.Contains(text, ">    1 | notes by bob") {
		t.Errorf("bob's model was shown:\n%s\nwant the comment and the quoted line 1 of notes.txt", text)
	} else if !strings.Contains(text, `teammate_id="`+team.DefaultUser+`"`) {
		t.Errorf("the comment reached bob as:\n%s\nwant it under the person's own name %s (a team Claude leads: never as team-lead)", text, team.DefaultUser)
	}

	// While bob runs, land refuses, changing nothing, and says to ask
	// Claude's lead, which started bob: only it can stop bob, so --stop
	// is refused too.
	head := gitIn(t, repo, "rev-parse", "HEAD")
	if out, errOut, code := pt(t, l.Session, "land", "bob"); code == 0 || !strings.Contains(errOut, "still running") ||
		!strings.Contains(errOut, "ask Claude's lead") || strings.Contains(errOut, "--stop") || strings.Contains(errOut, "paneteam shutdown") {
		t.Errorf("land of the running bob: exit %d\n%s%s; want a refusal saying to ask Claude's lead, offering no --stop or shutdown (both refused)", code, out, errOut)
	}
	if out, errOut, code := pt(t, l.Session, "land", "bob", "--stop"); code == 0 || !strings.Contains(errOut, "lead") {
		t.Errorf("land --stop of a teammate Claude's lead started: exit %d\n%s%s; want a refusal saying to ask its lead", code, out, errOut)
	} else {
		t.Logf("land --stop refused: %s", strings.TrimSpace(errOut))
	}
	if got := gitIn(t, repo, "rev-parse", "HEAD"); got != head || gitIn(t, repo, "rev-parse", "refs/heads/"+branch) != tip {
		t.Errorf("a refused land moved main or bob's branch")
	}
	if pids := agentProcs("bob@" + cfg.Name); len(pids) == 0 {
		t.Errorf("bob is gone after a refused land --stop")
	}

	l.exitLead(t, l.server(true), true, "bob@"+cfg.Name)
	testutil.Eventually(t, 15*time.Second, "review to see bob has ended", func() bool {
		return !reviewOf(t, ptOK(t, l.Session, "review", "--json"), "bob").Running
	})
	before := gitIn(t, repo, "rev-parse", "HEAD")
	out, errOut, code := pt(t, l.Session, "land", "bob")
	if code != 0 || !strings.Contains(out, "landed bob (merge) on main") {
		t.Fatalf("land bob: exit %d\n%s%s", code, out, errOut)
	}
	checkLanded(t, repo, before, out, "notes.txt", content, tree, branch, tip)
}
