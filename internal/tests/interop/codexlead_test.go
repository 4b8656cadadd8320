package interop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
)

// TestCodexTeammateOfClaudeLead puts a Codex teammate under the real
// Claude Code lead, as a person would: Claude leads its session
// team in a tmux pane (its model has started a teammate of its own with
// the Agent tool, so it polls its inbox), and 'paneteam spawn-pane --team
// <Claude's session team> --agent codex' adds Codex beside it. Codex's
// model calls the MCP tool send_message to team-lead: Claude's lead
// delivers that text to its own model as a teammate's message, and Codex's
// turn end reaches the lead as an idle_notification. The lead's own
// SendMessage to Codex reaches Codex's model through read_inbox.
func TestCodexTeammateOfClaudeLead(t *testing.T) {
	codexBin := agenttest.Install(t, agenttest.Codex)
	testutil.MCPBinary(t)
	ptBin := testutil.Binary(t)

	// Codex's model: the prompt makes it report to the lead; the tool's
	// result ends the turn with a reply. A notice of the lead's message
	// makes it read its inbox.
	const report = "coder here: parser done, 12 tests pass"
	const reply = "Reported to the lead."
	var mu sync.Mutex
	var turnEnd time.Time
	var sendResult, inboxed string
	model := agenttest.NewModel(t, func(r *agenttest.Request) []agenttest.Output {
		if !r.OffersTool("send_message") {
			return agenttest.Text("Teammate work") // a side request (a title)
		}
		last := r.Last()
		switch {
		case last.CallID == "call_report":
			mu.Lock()
			sendResult, turnEnd = last.ToolOutput, time.Now()
			mu.Unlock()
			return agenttest.Text(reply)
		case last.CallID == "call_read":
			mu.Lock()
			inboxed = last.ToolOutput
			mu.Unlock()
			return agenttest.Text("Read the lead's message.")
		case strings.Contains(last.UserText, "new message from team-lead"):
			out := agenttest.CallTool("mcp__team", "read_inbox", map[string]any{})
			out[0].Call.ID = "call_read"
			return out
		case strings.Contains(last.UserText, "Report to the lead"):
			out := agenttest.CallTool("mcp__team", "send_message", map[string]any{"to": "team-lead", "text": report, "summary": "parser done"})
			out[0].Call.ID = "call_report"
			return out
		}
		return agenttest.Text("ok")
	})

	api := claudetest.NewAPI(t)
	s := claudetest.Start(t, claudetest.Options{API: api, Env: []string{
		// The person's PATH has codex and paneteam; the key is Codex's
		// provider's (its config below).
		"PATH=" + codexBin + ":" + filepath.Dir(ptBin) + ":" + os.Getenv("PATH"), "FAKE_API_KEY=test-key",
	}})
	cfg := s.WaitTeam(t, wait)
	team := cfg.Name
	if !strings.HasPrefix(team, "session-") {
		t.Fatalf("Claude's team is %q, want its session-* team", team)
	}
	// The person's own Codex config: the scripted model as its provider
	// (its key, FAKE_API_KEY, is in the person's environment above).
	agenttest.PersonConfig(t, agenttest.Codex, s.Home, model)

	// Claude's lead polls its inbox only once it has a teammate of its own.
	const bobPrompt = "You are bob; wait for messages."
	after := api.LastSeq()
	api.On("start a teammate named bob",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "helper bob", "prompt": bobPrompt, "name": "bob"})),
		claudetest.Text("Spawned bob."))
	s.Submit(t, wait, "start a teammate named bob")
	api.WaitMessages(t, wait, after, "Spawned successfully")
	api.WaitMessages(t, wait, after, bobPrompt)

	// Codex joins Claude's team from Claude's pane, as a person would.
	after = api.LastSeq()
	endMember(t, s, "coder")
	out, errOut, code := ptWith(t, s, s.TmuxEnv(t), "spawn-pane", "--team", team, "--name", "coder", "--json",
		"--cwd", s.Cwd, "--agent", "codex", "--prompt", "You are coder. Report to the lead.")
	if code != 0 {
		t.Fatalf("paneteam spawn-pane --agent codex into Claude's team %s: exit %d\n%s%s", team, code, out, errOut)
	}
	var spawned struct {
		PaneID string `json:"pane_id"`
	}
	json.Unmarshal([]byte(out), &spawned)
	defer func() {
		if t.Failed() {
			t.Logf("coder's screen:\n%s", s.PaneScreen(spawned.PaneID))
			for _, r := range model.Requests() {
				t.Logf("codex model request %d %s: last %+.300v", r.Seq, r.Path, r.Last())
			}
			b, _ := os.ReadFile(filepath.Join(s.TeamDir(), "config.json"))
			t.Logf("config.json:\n%s", b)
		}
	}()
	if !contains(memberNames(mustConfig(t, s)), "coder") {
		t.Fatalf("config.json of %s does not list coder after spawn-pane", team)
	}

	// Codex's send_message reaches Claude's lead, which tells its model.
	got := api.WaitRequest(t, wait, after, "of Claude's lead carrying coder's report", func(r *claudetest.Request) bool {
		return r.MainLoop && r.SessionID() == cfg.LeadSessionID && strings.Contains(r.MessagesText(), report)
	})
	if tail := got.TailText(); !strings.Contains(tail, `<teammate-message teammate_id="coder"`) || strings.Contains(tail, `verified="false"`) {
		t.Errorf("Claude's lead gave its model coder's report as:\n%s\nwant a <teammate-message teammate_id=\"coder\"> not marked verified=\"false\"", tail)
	}
	// The lead can read the inbox before Codex hands the tool's result
	// back to its model: wait for that result.
	testutil.Eventually(t, wait, "send_message's result to reach Codex's model", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return sendResult != ""
	})
	mu.Lock()
	res := sendResult
	mu.Unlock()
	if !strings.Contains(res, "team-lead") {
		t.Errorf("send_message told Codex's model %q, want delivered to team-lead", res)
	}

	// The turn's end reaches the lead as coder's idle_notification, with
	// the turn's last reply.
	idleReq := api.WaitRequest(t, wait, after, "of Claude's lead carrying coder's idle_notification", func(r *claudetest.Request) bool {
		return r.MainLoop && r.SessionID() == cfg.LeadSessionID && idleShown(r.MessagesText(), "coder") != nil
	})
	mu.Lock()
	t.Logf("Claude's lead told its model of coder's idle %s after Codex's last reply", idleReq.Time.Sub(turnEnd).Round(time.Millisecond))
	mu.Unlock()
	if idle := idleShown(idleReq.MessagesText(), "coder"); idle.Summary != reply || idle.Result != reply || idle.IdleReason != mailbox.IdleAvailable {
		t.Errorf("coder's idle_notification as Claude's lead got it: %+v, want summary and result %q, reason available", *idle, reply)
	}
	if !contains(memberNames(mustConfig(t, s)), "coder") {
		t.Errorf("coder is no longer in config.json of %s after its turn", team)
	}

	// The other way: Claude's lead messages coder with its SendMessage;
	// Codex is told between turns and reads it with read_inbox.
	const ask = "coder, please add a test for empty input"
	api.On("ask coder for a test",
		claudetest.Calls(claudetest.Tool("ToolSearch", map[string]any{"query": "select:SendMessage", "max_results": 5})),
		claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "coder", "message": ask, "summary": "a test"})),
		claudetest.Text("Asked."))
	s.Submit(t, wait, "ask coder for a test")
	testutil.Eventually(t, wait, "Codex's model to read the lead's message with read_inbox", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return inboxed != ""
	})
	mu.Lock()
	read := inboxed
	mu.Unlock()
	if !strings.Contains(read, ask) || !strings.Contains(read, `"from":"team-lead"`) {
		t.Errorf("read_inbox gave Codex's model %s, want the lead's message from team-lead", read)
	}

	// Shutdown through paneteam ends Codex and nothing of it stays.
	if len(codexProcs(s.ConfigDir)) == 0 {
		t.Fatal("no process of coder's found before shutdown: the check after it would prove nothing")
	}
	out, errOut, code = pt(t, s, "shutdown", "--team", team, "--name", "coder", "--timeout", "60s")
	if code != 0 {
		t.Fatalf("paneteam shutdown --name coder: exit %d\n%s%s", code, out, errOut)
	}
	testutil.Eventually(t, 30*time.Second, "no process of coder's left", func() bool { return len(codexProcs(s.ConfigDir)) == 0 })
}

// idleShown is the idle_notification from `from` in text that Claude's lead
// gave its model, each inside a <teammate-message> (nil when none).
func idleShown(text, from string) *mailbox.IdleNotification {
	for _, line := range strings.Split(text, "\n") {
		if p, ok := mailbox.Parse(strings.TrimSpace(line)); ok && p.Type == mailbox.TypeIdle {
			if n, ok := p.Value.(*mailbox.IdleNotification); ok && n.From == from {
				return n
			}
		}
	}
	return nil
}

// codexProcs lists live processes of the teammate coder under configDir.
func codexProcs(configDir string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "environ"))
		b = append([]byte{0}, b...) // the first variable has no NUL before it
		if err != nil || !strings.Contains(string(b), "\x00PANETEAM_ROOT="+configDir+"\x00") ||
			!strings.Contains(string(b), "\x00PANETEAM_AGENT=coder\x00") {
			continue
		}
		var pid int
		fmt.Sscan(filepath.Base(d), &pid)
		if pid > 0 && !isZombie(pid) && syscall.Kill(pid, 0) == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
