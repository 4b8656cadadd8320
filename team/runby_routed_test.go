package team

import (
	"encoding/json"
	"testing"
)

// TestRoutedMemberIsClaudesTeammate: a member Claude's lead started
// through paneteam's router carries paneteam's record, yet it is Claude's
// pane teammate (only Claude's lead may stop it); without the routed mark
// the same record makes it paneteam's.
func TestRoutedMemberIsClaudesTeammate(t *testing.T) {
	var cfg Config
	if err := json.Unmarshal([]byte(`{"name":"session-1","leadAgentId":"team-lead@session-1",
		"leadProcess":{"pid":4242,"pidSpace":"host","claimedAt":1767225600000},"members":[]}`), &cfg); err != nil {
		t.Fatal(err)
	}
	m := Member{Name: "coder", TmuxPaneID: "%4", Paneteam: &MemberMeta{CLI: "codex", Routed: true}}
	if got := cfg.RunBy(&m); got != RunByClaudePane || !cfg.StartedByClaude(&m) || !m.Routed() {
		t.Fatalf("routed member: run by %s, started by Claude %v", got, cfg.StartedByClaude(&m))
	}
	m.Paneteam.Routed = false
	if got := cfg.RunBy(&m); got != RunByPaneteam {
		t.Fatalf("paneteam's member: run by %s", got)
	}
}
