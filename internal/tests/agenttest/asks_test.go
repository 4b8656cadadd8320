package agenttest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// A Gemini CLI teammate in approval mode "default" asks, in its own pane,
// before it runs a shell command: its Notification hook (ToolPermission)
// makes it need you in status, until the person approves in the pane and
// the command runs (its AfterTool hook).
func TestGeminiAsksInItsPane(t *testing.T) {
	bin := agenttest.Install(t, agenttest.Gemini)
	asksScenario(t, agenttest.Gemini, bin, "run_shell_command", "1", nil)
}

// An OpenCode teammate whose project says to ask before bash asks in its
// own pane: its plugin's permission.asked event makes it need you in
// status, until the person allows it there (permission.replied).
func TestOpenCodeAsksInItsPane(t *testing.T) {
	bin := agenttest.Install(t, agenttest.OpenCode)
	asksScenario(t, agenttest.OpenCode, bin, "bash", "\r", func(work string) {
		// The person's own config allows every tool; the project asks.
		if err := os.WriteFile(filepath.Join(work, "opencode.json"), []byte(`{"permission": {"bash": "ask"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	})
}

// asksScenario starts the CLI as teammate "coder", whose model asks for
// shell "touch APPROVED": the CLI's dialog shows, 'paneteam status' says
// coder needs you (text, --json, the tmux status line); approveKey typed
// in coder's pane approves it, the file is made, and coder no longer needs you.
func asksScenario(t *testing.T, cli agenttest.CLI, bin, shellTool, approveKey string, project func(work string)) {
	var mu sync.Mutex
	var target, result string
	model := agenttest.NewModel(t, func(r *agenttest.Request) []agenttest.Output {
		if !r.OffersTool("send_message") {
			switch {
			case r.Contains("complexity_score"):
				return agenttest.Text(`{"complexity_reasoning": "a routine step", "complexity_score": 10}`)
			case r.Contains("next_speaker"):
				return agenttest.Text(`{"reasoning": "the turn is done", "next_speaker": "user"}`)
			}
			return agenttest.Text("Teammate work")
		}
		mu.Lock()
		defer mu.Unlock()
		last := r.Last()
		switch {
		case last.CallID == "call_touch" || last.ToolName == shellTool:
			result = last.ToolOutput
			return agenttest.Text("Touched it.")
		case strings.Contains(last.UserText, "You are coder"):
			out := agenttest.CallTool("", shellTool, map[string]any{"command": "touch " + target, "description": "make the file"})
			out[0].Call.ID = "call_touch"
			return out
		}
		return agenttest.Text("ok")
	})
	w := newWorld(t, cli, bin, model)
	target = filepath.Join(w.work, "APPROVED")
	if project != nil {
		project(w.work)
	}
	out := w.paneteam("spawn-pane", "--team", "review", "--name", "coder", "--json", "--cwd", w.work,
		"--agent", cli.Name, "--permission-mode", "default", "--prompt", "Touch APPROVED.")
	var spawned struct {
		PaneID string `json:"pane_id"`
	}
	json.Unmarshal([]byte(out), &spawned)
	defer func() {
		if t.Failed() {
			t.Logf("coder's screen:\n%s", w.screen(spawned.PaneID))
			for _, r := range model.Requests() {
				t.Logf("model request %d %s: last %+.300v", r.Seq, r.Path, r.Last())
			}
		}
	}()

	type member struct {
		Name, State, Asks, AsksAbout string
		NeedsYou                     bool
	}
	coder := func() member {
		var st []struct{ Members []member }
		if err := json.Unmarshal([]byte(w.paneteam("status", "--team", "review", "--json")), &st); err != nil {
			t.Fatal(err)
		}
		for _, m := range st[0].Members {
			if m.Name == "coder" {
				return m
			}
		}
		return member{}
	}
	testutil.Eventually(t, 120*time.Second, "status to say coder needs you while its dialog is up", func() bool {
		return coder().NeedsYou
	})
	c := coder()
	t.Logf("coder asks: %q", c.AsksAbout)
	if c.State != "needs-you" || c.Asks != "asks for approval in its pane" {
		t.Errorf("status --json: %+v", c)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("the command ran before it was approved")
	}
	if text := w.paneteam("status", "--team", "review"); !strings.Contains(text, "NEEDS YOU (in its pane)") {
		t.Errorf("status does not say coder needs you:\n%s", text)
	}
	if line := w.paneteam("status", "--format", "tmux"); !strings.Contains(line, "!1 need you") {
		t.Errorf("the status line does not count coder's dialog: %q", line)
	}

	// The person approves in the pane: the first choice, allow once. The
	// dialog takes keys only once drawn, which a loaded machine delays: a
	// key that came too early is pressed again, as a person would.
	var pressed time.Time
	testutil.Eventually(t, 60*time.Second, "the approved command to run", func() bool {
		if _, err := os.Stat(target); err == nil {
			return true
		}
		if time.Since(pressed) > 3*time.Second && strings.Contains(strings.ToLower(w.screen(spawned.PaneID)), "allow") {
			if _, err := w.srv.Run(context.Background(), "send-keys", "-t", spawned.PaneID, "-l", approveKey); err != nil {
				t.Fatal(err)
			}
			pressed = time.Now()
		}
		return false
	})
	testutil.Eventually(t, 30*time.Second, "status to say coder no longer needs you", func() bool {
		c := coder()
		return !c.NeedsYou && c.Asks == "" && c.State != "needs-you"
	})
	testutil.Eventually(t, 60*time.Second, "coder's turn to end (its idle notice)", func() bool { return len(w.idles("coder")) > 0 })
	mu.Lock()
	defer mu.Unlock()
	if result == "" {
		t.Errorf("the model never got the command's result")
	}
}
