package spawn

import (
	"context"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamfind"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// leadPaneTimeout bounds the search for a Claude Code lead's pane.
const leadPaneTimeout = 3 * time.Second

// besideClaudeLead is env for choosing a spawn's backend: inside tmux, in
// a team a live Claude Code process leads, new panes split beside
// Claude's own pane (the pane whose process tree holds leadProcess.pid;
// Claude Code never records it, docs/PROTOCOL.md §3) rather than the
// caller's.
func besideClaudeLead(ctx context.Context, env backend.Env, cfg *team.Config) backend.Env {
	lead := team.LeadOf(cfg)
	if !lead.ClaudeLed() || env.Getenv == nil || env.Getenv("TMUX") == "" {
		return env
	}
	srv, err := tmux.FromTMUX(env.Getenv("TMUX"))
	if err != nil {
		return env
	}
	ctx, cancel := context.WithTimeout(ctx, leadPaneTimeout)
	defer cancel()
	pane, err := teamfind.LeadPane(ctx, srv, int(lead.PID))
	if err != nil || pane == "" {
		return env
	}
	get := env.Getenv
	env.Getenv = func(k string) string {
		if k == "TMUX_PANE" {
			return pane
		}
		return get(k)
	}
	return env
}
