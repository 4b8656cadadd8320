package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/teamfind"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// teamScope is the team a command acts on, as its flags give it: read
// once from the command (readTeamScope), so a command's run function
// takes plain values and never reads a flag by name.
type teamScope struct {
	Root string // --root, or PANETEAM_ROOT; "" is the default root
	Team string // --team, or PANETEAM_TEAM; "" is inferred
	Lock lockfile.Options
}

func readTeamScope(c *ucli.Command) teamScope { return readFlags(c).teamScope() }

func (v flagValues) teamScope() teamScope {
	return teamScope{Root: v.String("root"), Team: v.String("team"), Lock: lockfile.Options{Timeout: v.Duration("lock-timeout")}}
}

// open opens the team named by --team (or PANETEAM_TEAM), else (inside
// tmux) by the session's @paneteam-team option (tmux_team.go), else the
// Claude Code session's team the caller runs in (teamfind.Infer). The
// run reads the team's config.json once (factory.Team), however many
// steps ask for it.
func (s teamScope) open(ctx context.Context, env Env) (team.Team, *team.Config, error) {
	root, err := env.root(s.Root)
	if err != nil {
		return team.Team{}, nil, err
	}
	name := s.Team
	if name == "" {
		name = tmuxTeam(ctx, env)
	}
	if name == "" {
		if name, err = teamfind.Infer(ctx, root, teamfind.Self(env.Getenv)); err != nil {
			if teamfind.IsAmbiguous(err) {
				return team.Team{}, nil, usagef("%w%s", err, tmuxTeamHint(env))
			}
			return team.Team{}, nil, err
		}
	}
	t, cfg, err := env.factory().Team(root, name)
	if err == nil {
		for _, sk := range cfg.SkippedMembers() {
			warn(env, sk)
		}
	}
	return t, cfg, err
}
