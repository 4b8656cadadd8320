package agenttest_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// TestResumedAgentTeammatesContinueTheirSessions: a Codex, a Gemini CLI
// and an OpenCode teammate (spawn-pane --agent, inside tmux) each have
// one exchange with their model; their tmux server dies; a message is
// sent to each while down; 'paneteam resume' from outside tmux brings
// them back. Each CLI continues its own session, the one its turn-end
// hook named: its next model request holds its earlier conversation and,
// read through its team tools as it is asked to, the message sent while
// it was down. The three run side by side.
func TestResumedAgentTeammatesContinueTheirSessions(t *testing.T) {
	for _, c := range []struct {
		cli  agenttest.CLI
		call func(tool string) (namespace, name string)
	}{
		{agenttest.Codex, func(tool string) (string, string) { return "mcp__team", tool }},
		{agenttest.Gemini, func(tool string) (string, string) { return "", "mcp_team_" + tool }},
		{agenttest.OpenCode, func(tool string) (string, string) { return "", "team_" + tool }},
	} {
		t.Run(c.cli.Name, func(t *testing.T) {
			t.Parallel()
			bin := agenttest.Install(t, c.cli)
			sc := &resumeScript{call: c.call}
			model := agenttest.NewModel(t, sc.answer)
			w := newWorld(t, c.cli, bin, model)
			resumeScenario(t, w, c.cli.Name)
		})
	}
}

// resumeScript plays the model: it notes a codeword on its first prompt
// and, told it was started again, reads its inbox.
type resumeScript struct {
	call func(tool string) (namespace, name string)
	mu   sync.Mutex
}

const (
	firstPrompt = "Remember the codeword PELICAN."
	firstReply  = "Noted the codeword."
	downMessage = "While you were down the codeword changed to OSPREY."
)

func (s *resumeScript) answer(r *agenttest.Request) []agenttest.Output {
	if !r.OffersTool("read_inbox") {
		switch { // side requests; Gemini CLI's want JSON
		case r.Contains("complexity_score"):
			return agenttest.Text(`{"complexity_reasoning": "a routine step", "complexity_score": 10}`)
		case r.Contains("next_speaker"):
			return agenttest.Text(`{"reasoning": "the turn is done", "next_speaker": "user"}`)
		}
		return agenttest.Text("Teammate work")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	last := r.Last()
	switch {
	case last.CallID != "" || last.ToolName != "":
		return agenttest.Text("I read my messages.")
	case strings.Contains(last.UserText, "started you again"):
		ns, name := s.call("read_inbox")
		return agenttest.CallTool(ns, name, map[string]any{})
	case strings.Contains(last.UserText, firstPrompt):
		return agenttest.Text(firstReply)
	}
	return agenttest.Text("ok")
}

func resumeScenario(t *testing.T, w *world, cli string) {
	start := time.Now()
	state := t.TempDir()
	w.tmuxEnv = append(w.tmuxEnv, "PANETEAM_STATE_DIR="+state)
	out := w.paneteam("spawn-pane", "--team", "review", "--name", "coder", "--json", "--cwd", w.work,
		"--agent", cli, "--prompt", firstPrompt)
	var spawned struct {
		PaneID string `json:"pane_id"`
	}
	json.Unmarshal([]byte(out), &spawned)
	defer func() {
		if t.Failed() {
			for _, r := range w.model.Requests() {
				t.Logf("model request %d %s: last %+.300v", r.Seq, r.Path, r.Last())
			}
		}
	}()
	// The exchange ends; the CLI's hook names its session.
	testutil.Eventually(t, 120*time.Second, "coder's first turn to end, its session named", func() bool {
		id, _ := agentrun.ReadSession(w.team, "coder")
		return len(w.idles("coder")) > 0 && id != ""
	})
	session, _ := agentrun.ReadSession(w.team, "coder")
	if idle := w.idles("coder")[0]; idle.Summary != firstReply {
		t.Errorf("coder's first turn ended with %+v, want its reply %q", idle, firstReply)
	}
	t.Logf("%s: first turn ended in session %s", time.Since(start).Round(time.Second), session)

	if _, err := w.srv.Run(context.Background(), "kill-server"); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, "coder's processes to end with the tmux server", func() bool {
		return len(leftover(w.root, "coder")) == 0
	})

	outside := testutil.Env(append(w.env, "PANETEAM_ROOT="+w.root, "PANETEAM_STATE_DIR="+state,
		"TMUX_TMPDIR="+testutil.ShortTempDir(t), "PANETEAM_TMUX_CONFIG=/dev/null")...)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(w.pt, args...)
		cmd.Env, cmd.Dir = outside, w.work
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("paneteam %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
		return string(out)
	}
	run("send", "--team", "review", "--to", "coder", downMessage)
	after := len(w.model.Requests())
	out = run("resume", "--team", "review", "--json")
	t.Cleanup(func() {
		if _, c, err := team.Open(w.root, "review"); err == nil && c.Paneteam != nil && c.Paneteam.TmuxSocket != "" {
			exec.Command("tmux", "-S", c.Paneteam.TmuxSocket, "kill-server").Run()
		}
	})
	// The pane paneteam's private server now shows coder in.
	screen := func() string {
		if _, c, err := team.Open(w.root, "review"); err == nil && c.Paneteam != nil {
			if m := c.Member("coder"); m != nil {
				out, _ := exec.Command("tmux", "-S", c.Paneteam.TmuxSocket, "capture-pane", "-p", "-S", "-200", "-t", m.TmuxPaneID).Output()
				return string(out)
			}
		}
		return ""
	}
	defer func() {
		if t.Failed() {
			t.Logf("coder's screen after resume:\n%s", screen())
		}
	}()
	var res struct {
		Started []struct {
			Name, How, Note string
			SessionID       *string
		} `json:"started"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("resume --json: %v\n%s", err, out)
	}
	if len(res.Started) != 1 || res.Started[0].How != "continued" || res.Started[0].SessionID == nil || *res.Started[0].SessionID != session {
		t.Fatalf("resume started %s\nwant coder's %s session %s continued", out, cli, session)
	}

	t.Logf("%s: resumed", time.Since(start).Round(time.Second))
	// Asked to read its inbox, it reads the message sent while it was
	// down, in the conversation it had.
	var got *agenttest.Request
	w.model.Wait(120*time.Second, "coder's read_inbox with the message sent while it was down", func(rs []*agenttest.Request) bool {
		for _, r := range rs[after:] {
			if r.OffersTool("read_inbox") && strings.Contains(r.Last().ToolOutput, "OSPREY") {
				got = r
				return true
			}
		}
		return false
	})
	t.Logf("%s: read the message sent while down", time.Since(start).Round(time.Second))
	if !got.Contains(firstPrompt) || !got.Contains(firstReply) {
		t.Errorf("coder's request after resume does not hold its earlier conversation (%q, %q):\n%.4000s", firstPrompt, firstReply, got.Body)
	}
	// The person sees that conversation in its pane, not a new one.
	testutil.Eventually(t, 30*time.Second, "coder's pane to show its earlier conversation", func() bool {
		return strings.Contains(screen(), firstReply)
	})
	recs, _ := launches.Open(state).List(w.root, "review")
	if len(recs) != 1 || recs[0].CLISession != session {
		t.Errorf("coder's launch record after resume: %+v, want its CLI session %s", recs, session)
	}
	testutil.Eventually(t, 60*time.Second, "coder's turn after resume to end, in the same session", func() bool {
		id, _ := agentrun.ReadSession(w.team, "coder")
		return len(w.idles("coder")) >= 2 && id == session
	})
}
