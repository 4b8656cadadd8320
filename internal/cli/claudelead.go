package cli

import (
	"context"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/teamfind"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// spawnBackendEnv is backendEnv for spawn-pane: inside tmux, in a team a
// live Claude Code process leads, new panes split beside Claude's own pane
// (the pane whose process tree holds leadProcess.pid; Claude Code never
// records it, PROTOCOL-2.1.330.md §2) rather than the caller's.
func spawnBackendEnv(ctx context.Context, env Env, cfg *team.Config) backend.Env {
	b := backendEnv(env)
	lead := team.LeadOf(cfg)
	if !lead.ClaudeLed() || env.Getenv("TMUX") == "" {
		return b
	}
	srv, err := tmux.FromTMUX(env.Getenv("TMUX"))
	if err != nil {
		return b
	}
	ctx, cancel := context.WithTimeout(ctx, aliveTimeout)
	defer cancel()
	pane, err := teamfind.LeadPane(ctx, srv, int(lead.PID))
	if err != nil || pane == "" {
		return b
	}
	get := b.Getenv
	b.Getenv = func(k string) string {
		if k == "TMUX_PANE" {
			return pane
		}
		return get(k)
	}
	return b
}

// promptSender is who a new teammate's first prompt is from: team-lead,
// except in a team a live Claude Code process leads, where only Claude's
// lead may write as team-lead: there it is the spawner's own name
// (team.ChooseSender without --from).
func promptSender(env Env, cfg *team.Config) (string, error) {
	lead := team.LeadOf(cfg)
	if !lead.ClaudeLed() {
		return team.LeadName, nil
	}
	ch, err := team.ChooseSender(cfg, lead, "", env.Getenv("PANETEAM_AGENT"), env.Getenv("PANETEAM_USER"))
	if err != nil {
		return "", usageError{err}
	}
	return ch.From, nil
}

// withRoot makes sure a teammate's environment names its team root: a pane
// left behind once its team folder is gone (Claude Code deletes its
// session team at exit) can then be told from a pane of a team under
// another root (lifecycle.Reap).
func withRoot(env []string, root string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "PANETEAM_ROOT=") {
			return env
		}
	}
	return append(env, "PANETEAM_ROOT="+root)
}

// defaultSender is who a message written by a command with a --from flag
// (default team-lead, or $PANETEAM_AGENT) is from: in a team a live Claude
// Code process leads, team.ChooseSender decides, so that paneteam never
// writes as Claude's lead unless --from says so.
func defaultSender(c *ucli.Command, env Env, cfg *team.Config, from string) (string, error) {
	lead := team.LeadOf(cfg)
	if !lead.ClaudeLed() {
		return from, nil
	}
	agent := env.Getenv("PANETEAM_AGENT")
	explicit := ""
	if c.IsSet("from") && from != agent {
		explicit = from
	}
	ch, err := team.ChooseSender(cfg, lead, explicit, agent, env.Getenv("PANETEAM_USER"))
	if err != nil {
		return "", usageError{err}
	}
	if ch.Warning != "" {
		fmt.Fprintf(env.Stderr, "paneteam: warning: %s\n", ch.Warning)
	}
	return ch.From, nil
}
