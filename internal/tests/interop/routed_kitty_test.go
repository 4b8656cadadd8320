package interop

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestClaudeLeadSpawnsCodexInKitty: a person runs 'paneteam claude' in
// kitty with Codex installed and asks Claude's lead for a Codex
// reviewer. Codex opens in a kitty window of its own beside the lead,
// its model gets the lead's prompt through read_inbox (never in its
// argv), its send_message reaches the lead's model as coder's message,
// the lead's SendMessage reaches it between turns, and the lead's exit
// closes its window and leaves no process of Codex's.
func TestClaudeLeadSpawnsCodexInKitty(t *testing.T) {
	codexBin := agenttest.Install(t, agenttest.Codex)
	testutil.MCPBinary(t)
	// Not routedCodex: this test's script is the one the other CLIs' tests
	// use, with Codex's names for the team tools.
	model := newRoutedTeammate(t, func(tool string, args any) []agenttest.Output { return agenttest.CallTool("mcp__team", tool, args) })
	term := &kittyTerm{t: t}
	l := startShimLeadWith(t, "", false, term, []string{codexBin}, agenttest.PersonEnv(agenttest.Codex, model.Model))
	agenttest.PersonConfig(t, agenttest.Codex, l.Home, model.Model)
	cfg := mustConfig(t, l.Session)

	const prompt = "Review parser.go for off-by-one errors and report to me."
	after := l.api.LastSeq()
	l.api.On("get a codex reviewer for parser.go",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "codex reviewer", "prompt": prompt,
			"name": "coder", "subagent_type": "codex"})),
		claudetest.Text("Started coder."))
	l.Submit(t, wait, "get a codex reviewer for parser.go")
	l.api.WaitMessages(t, wait, after, "Spawned successfully")
	defer func() {
		if t.Failed() {
			for _, r := range model.Requests() {
				t.Logf("codex model request %d %s: last %+.300v", r.Seq, r.Path, r.Last())
			}
		}
	}()
	testutil.Eventually(t, wait, "Codex's model to read the lead's prompt with read_inbox", func() bool { return model.get(&model.prompt) != "" })
	if got := model.get(&model.prompt); !strings.Contains(got, prompt) || !strings.Contains(got, `"from":"team-lead"`) {
		t.Errorf("read_inbox gave Codex's model %s, want the lead's prompt from team-lead", got)
	}

	// Codex runs in a kitty window of its own, in the lead's tab.
	window := nativeTeammates(t, l, term, "coder")["coder"]
	ps, _ := term.Panes(t)
	for _, p := range ps {
		if p.pid == l.PID && (p.handle == window.handle || p.tab != window.tab) {
			t.Errorf("coder's window %+v is not beside the lead's %+v", window, p)
		}
	}
	pids := codexProcs(l.ConfigDir)
	if len(pids) == 0 {
		t.Fatal("no Codex process of coder's")
	}
	for _, pid := range pids {
		if !descends(pid, window.pid) {
			t.Errorf("Codex process %d does not run in coder's kitty window (pid %d)", pid, window.pid)
		}
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); strings.Contains(string(b), "off-by-one") {
			t.Errorf("the lead's prompt is in Codex's command line, which ps shows: %q", b)
		}
	}

	// Codex's report reaches the lead's model as coder's message.
	got := l.api.WaitRequest(t, wait, after, "of Claude's lead carrying coder's report", func(r *claudetest.Request) bool {
		return r.MainLoop && r.SessionID() == cfg.LeadSessionID && strings.Contains(r.MessagesText(), routedReport)
	})
	if tail := got.TailText(); !strings.Contains(tail, `<teammate-message teammate_id="coder"`) {
		t.Errorf("Claude's lead gave its model coder's report as:\n%s", tail)
	}

	// The lead's reply reaches Codex between turns, through read_inbox.
	const ask = "coder, please also check the empty-input case"
	l.api.On("ask coder about empty input",
		claudetest.Calls(claudetest.Tool("ToolSearch", map[string]any{"query": "select:SendMessage", "max_results": 5})),
		claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "coder", "message": ask, "summary": "empty input"})),
		claudetest.Text("Asked."))
	l.Submit(t, wait, "ask coder about empty input")
	testutil.Eventually(t, wait, "Codex's model to read the lead's message", func() bool { return model.get(&model.inboxed) != "" })
	if got := model.get(&model.inboxed); !strings.Contains(got, ask) {
		t.Errorf("read_inbox gave Codex's model %s, want the lead's message", got)
	}
	if bad := l.unknownCalls(t); len(bad) > 0 {
		t.Errorf("the shim refused calls of Claude Code %s:\n%s", claudetest.Version(), strings.Join(bad, "\n"))
	}

	exitNativeLead(t, l, term, "coder@"+cfg.Name)
	testutil.Eventually(t, 30*time.Second, "no process of coder's left", func() bool { return len(codexProcs(l.ConfigDir)) == 0 })
}
