package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/core/lifecycle"
	"github.com/paneteam/paneteam/team"
	ucli "github.com/urfave/cli/v3"
)

// The teammate a command acts on: --name, checked against the team.

// memberFlag is --name for commands acting on one teammate.
func memberFlag(usage string) ucli.Flag {
	return &ucli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: usage}
}

// memberScope is the teammate a command names: --name in its team.
type memberScope struct {
	Scope teamScope
	Name  string
}

func readMemberScope(c *ucli.Command) memberScope {
	return memberScope{Scope: readTeamScope(c), Name: readFlags(c).String("name")}
}

// open opens the team and finds the teammate; the lead is refused (its
// pane is the user's own), and so is a teammate Claude Code started (only
// Claude's lead may stop or move it).
func (s memberScope) open(ctx context.Context, env Env) (team.Team, *team.Config, *team.Member, error) {
	if s.Name == "" {
		return team.Team{}, nil, nil, usagef("no teammate given: pass --name NAME")
	}
	t, cfg, err := s.Scope.open(ctx, env)
	if err != nil {
		return t, nil, nil, err
	}
	m := cfg.Member(s.Name)
	if m == nil {
		return t, nil, nil, fmt.Errorf("team %s has no member %q (members: %s)", t.Name, s.Name, strings.Join(cfg.MemberNames(), ", "))
	}
	if team.IsLeadName(cfg, m.Name) {
		return t, nil, nil, usagef("%s is the lead, whose pane is yours: paneteam only manages teammates' panes", m.Name)
	}
	if err := lifecycle.RefuseClaudeTeammate(cfg, m); err != nil {
		return t, nil, nil, err
	}
	return t, cfg, m, nil
}
