package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/teamfind"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

func attachCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "attach",
		Usage: "show a team's panes in this terminal",
		Description: `Attaches this terminal to the tmux server holding the team's panes: the
private server paneteam started when the lead was outside tmux, or the
lead's own server. With --name, that teammate's pane is selected; a
teammate running in-process is attached directly (detach with Ctrl-]).

    paneteam attach --team review
    paneteam attach --team review --name alice

Detach from tmux as usual (prefix d). From inside another tmux, the team's
server is nested in this pane; 'paneteam attach' in a tmux popup keeps it
out of your layout (see tmux.conf.example).`,
		Flags: []ucli.Flag{teamFlag(), memberFlag("teammate to show (default: the whole team)")},
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runAttach(ctx, env, readAttachOptions(c))
		},
	}
}

type attachOptions struct {
	Scope teamScope
	Name  string // "": the whole team
}

func readAttachOptions(c *ucli.Command) attachOptions {
	return attachOptions{Scope: readTeamScope(c), Name: readFlags(c).String("name")}
}

func runAttach(ctx context.Context, env Env, o attachOptions) error {
	t, cfg, err := o.Scope.open(ctx, env)
	if err != nil {
		return err
	}
	var m *team.Member
	if o.Name != "" {
		if m = cfg.Member(o.Name); m == nil {
			return fmt.Errorf("team %s has no member %q (members: %s)", t.Name, o.Name, strings.Join(cfg.MemberNames(), ", "))
		}
		if m.BackendType == team.BackendInProcess {
			return attachInProcess(ctx, env, t, m)
		}
	}
	return attachTmux(ctx, env, cfg, m)
}

// attachTmux attaches to (or, from inside that same server, switches to)
// the team's tmux server.
func attachTmux(ctx context.Context, env Env, cfg *team.Config, m *team.Member) error {
	sock, private := teamSocket(cfg, m)
	target := "=" + backend.PrivateSession
	if sock == "" {
		// A team Claude Code leads ('paneteam claude'): its teammates'
		// panes are on its private claude-swarm server, or beside its
		// own pane.
		if lead := team.LeadOf(cfg); lead.ClaudeLed() {
			if srv, priv, ok := teamfind.ClaudeServer(lead.PID, env.Getenv); ok {
				sock, private, target = srv.Socket, priv, "=claude-swarm"
				if !priv {
					target, _ = teamfind.LeadPane(ctx, srv, int(lead.PID))
				}
			}
		}
	}
	if sock == "" || target == "" {
		return fmt.Errorf("team %s has no tmux panes paneteam started: spawn one with 'paneteam spawn-pane --team %s --name NAME -- COMMAND'", cfg.Name, cfg.Name)
	}
	srv := tmux.Server{Socket: sock}
	if !private && cfg.Paneteam != nil && cfg.Paneteam.LeaderPane != "" {
		target = cfg.Paneteam.LeaderPane
	}
	if m != nil && m.TmuxPaneID != "" {
		p, err := srv.OwnedPane(ctx, m.TmuxPaneID, m.AgentID)
		if err != nil {
			return attachErr(srv, err)
		}
		if p.Session == tmux.HiddenSession {
			return fmt.Errorf("%s's pane is hidden: run 'paneteam show --team %s --name %s' first", m.Name, cfg.Name, m.Name)
		}
		if _, err := srv.RunSeq(ctx, []string{"select-window", "-t", p.ID}, []string{"select-pane", "-t", p.ID}); err != nil {
			return attachErr(srv, err)
		}
		target = p.ID
	}
	if _, err := srv.Run(ctx, "has-session", "-t", target); err != nil {
		return attachErr(srv, err)
	}
	args := append(srv.Args(), "attach-session", "-t", target)
	vars := env.Vars
	if inside, _ := tmux.FromTMUX(env.Getenv("TMUX")); env.Getenv("TMUX") != "" && inside.Socket == sock {
		// Already a client of this server: move this client instead of
		// nesting the server in itself.
		args = append(srv.Args(), "switch-client", "-t", target)
	} else {
		vars = without(vars, "TMUX") // tmux refuses to nest while $TMUX is set
	}
	cmd := exec.CommandContext(ctx, "tmux", args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	cmd.Env = Env{Vars: vars}.Environ()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("tmux %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// teamSocket is the tmux server of the team (or of member m).
func teamSocket(cfg *team.Config, m *team.Member) (sock string, private bool) {
	if cfg.Paneteam != nil {
		sock, private = cfg.Paneteam.TmuxSocket, cfg.Paneteam.TmuxPrivate
	}
	if m != nil && m.Paneteam != nil && m.Paneteam.TmuxSocket != "" {
		if m.Paneteam.TmuxSocket != sock {
			private = false
		}
		sock = m.Paneteam.TmuxSocket
	}
	return sock, private
}

func attachErr(srv tmux.Server, err error) error {
	switch {
	case errors.Is(err, tmux.ErrNoServer):
		return fmt.Errorf("the team's %s is not running (stopped, or the machine restarted): its panes are gone; start teammates again with 'paneteam spawn-pane'", srv)
	case errors.Is(err, tmux.ErrPaneNotFound), errors.Is(err, tmux.ErrNoSession):
		return fmt.Errorf("the team's panes are gone from the %s: %w", srv, err)
	}
	return err
}

func without(vars map[string]string, keys ...string) map[string]string {
	out := make(map[string]string, len(vars))
	for k, v := range vars {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}
