package teamwatch

import (
	"github.com/paneteam/paneteam/internal/term/shorten"
	"github.com/paneteam/paneteam/team"
)

// CLIClaude is Member.CLI for Claude Code.
const CLIClaude = "claude"

// memberCLI is the one rule for which CLI a member runs (Member.CLI):
// what paneteam recorded when it started it (spawn-pane, the router);
// else Claude Code for a teammate Claude Code's lead started and for the
// lead of a team Claude Code leads; else "" (a plain command, or a member
// paneteam started before it recorded this).
func memberCLI(lead team.Lead, m *team.Member, runBy string) string {
	switch {
	case m.Paneteam != nil && m.Paneteam.CLI != "":
		return m.Paneteam.CLI
	case runBy == team.RunByClaudeInProcess || runBy == team.RunByClaudePane:
		return CLIClaude
	case runBy == team.RunByLead && lead.By == team.LedByClaude:
		return CLIClaude
	}
	return ""
}

// maxCLIWidth keeps a person's long profile name from widening every
// front end's column.
const maxCLIWidth = 16

// Runs says at a glance what runs the member and who started it, for
// status, the dashboard and monitor: "codex (paneteam)", "claude (pane)"
// (Claude Code's own), "codex (Claude's, pane)" (Claude's lead started
// it through paneteam's router), "claude (lead)"; without a CLI, who runs
// it ("paneteam", "lead"). It holds config.json's text: show it through
// visible.Line.
func (m Member) Runs() string {
	cli := shorten.Runes(m.CLI, maxCLIWidth, "…")
	switch m.RunBy {
	case team.RunByClaudeInProcess:
		return CLIClaude + " (in-process)"
	case team.RunByClaudePane:
		if cli != "" && cli != CLIClaude {
			return cli + " (Claude's, pane)"
		}
		return CLIClaude + " (pane)"
	}
	if cli == "" {
		return m.RunBy
	}
	return cli + " (" + m.RunBy + ")"
}
