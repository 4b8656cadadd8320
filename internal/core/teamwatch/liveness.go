package teamwatch

import (
	"context"

	"github.com/paneteam/paneteam/internal/core/teamfind"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/team"
)

// liveness says whether the member runs (PaneAlive, PaneDead or
// PaneUnknown, and why it is unknown). The lead and Claude Code's
// in-process teammates live in the lead's process; Claude Code's pane
// teammates are looked for on Claude's tmux server; paneteam's members
// are asked of the backend that started them. Every tmux server is asked
// once, through census.
func liveness(ctx context.Context, census *backend.Census, env *backend.Env, cfg *team.Config, lead team.Lead, m *team.Member, runBy string) (string, string) {
	switch {
	case runBy == team.RunByLead || runBy == team.RunByClaudeInProcess:
		switch lead.State {
		case team.LeadAlive:
			return PaneAlive, ""
		case team.LeadDead:
			return PaneDead, ""
		}
		return PaneUnknown, "the lead's process was not recorded"
	case runBy == team.RunByClaudePane && m.BackendType != team.BackendITerm2:
		return teamfind.ClaudePaneStateFrom(ctx, lead, m, env.Getenv, census.Panes)
	case runBy == team.RunByClaudePane:
		return PaneUnknown, "an iTerm2 pane Claude Code started: paneteam cannot see it"
	}
	alive, err := census.Alive(ctx, cfg, m)
	switch {
	case err != nil:
		return PaneUnknown, err.Error()
	case alive:
		return PaneAlive, ""
	}
	return PaneDead, ""
}

// byBackend: liveness asks the member's backend (not the lead's process
// nor Claude Code's tmux server) about a member run by runBy.
func byBackend(runBy string) bool {
	return runBy != team.RunByLead && runBy != team.RunByClaudeInProcess && runBy != team.RunByClaudePane
}
