package interop

import (
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestClaudeLeadOpenCodeRefusedADenyRule: a person runs 'paneteam claude
// -- --disallowed-tools "Bash(rm:*)"' and asks Claude's lead for an
// OpenCode teammate. Claude hands the teammate its deny rule, which
// OpenCode's profile cannot enforce: the teammate is refused, never
// started without it. The lead's model is told so by coder, naming the
// rule; coder's pane shows why; no OpenCode process starts; the lead's
// exit leaves nothing.
func TestClaudeLeadOpenCodeRefusedADenyRule(t *testing.T) {
	bin := agenttest.Install(t, agenttest.OpenCode)
	testutil.MCPBinary(t)
	model := newRoutedTeammate(t, func(tool string, args any) []agenttest.Output { return agenttest.CallTool("", "team_"+tool, args) })
	l := startShimLeadArgs(t, "", true, nil, []string{bin}, agenttest.PersonEnv(agenttest.OpenCode, model.Model),
		"--dangerously-skip-permissions", "--disallowed-tools", "Bash(rm:*)")
	agenttest.PersonConfig(t, agenttest.OpenCode, l.Home, model.Model)
	cfg := mustConfig(t, l.Session)

	after := l.api.LastSeq()
	l.api.On("get an opencode reviewer",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "opencode reviewer", "prompt": "Review parser.go.",
			"name": "coder", "subagent_type": "opencode"})),
		claudetest.Text("Started coder."))
	l.Submit(t, wait, "get an opencode reviewer")
	told := l.api.WaitRequest(t, wait, after, "of Claude's lead told why coder did not start", func(r *claudetest.Request) bool {
		return r.MainLoop && r.SessionID() == cfg.LeadSessionID && strings.Contains(r.TailText(), "did not start as OpenCode")
	})
	if tail := told.TailText(); !strings.Contains(tail, `<teammate-message teammate_id="coder"`) || !strings.Contains(tail, "Bash(rm:*)") {
		t.Errorf("Claude's lead gave its model:\n%s\nwant coder's message naming the deny rule Bash(rm:*)", tail)
	}
	srv := l.server(true)
	var screen string
	for _, p := range listShimPanes(t, srv) {
		if p.agent == "coder@"+cfg.Name {
			screen = l.PaneScreen(p.id)
		}
	}
	if !strings.Contains(screen, "Bash(rm:*)") {
		t.Errorf("coder's pane does not say why it did not start:\n%s", screen)
	}
	if len(model.Requests()) > 0 || len(codexProcs(l.ConfigDir)) > 0 {
		t.Errorf("OpenCode ran (%d model requests, processes %v)", len(model.Requests()), codexProcs(l.ConfigDir))
	}
	l.exitLead(t, srv, true, "coder@"+cfg.Name)
}
