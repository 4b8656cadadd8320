package cli

import (
	"fmt"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/paneteam/paneteam/backend"
	"github.com/paneteam/paneteam/team"
)

func killPaneCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "kill-pane",
		Usage: "stop a teammate: close its pane, remove it from the team, release its tasks",
		Description: `Closes the teammate's pane (only a pane paneteam started for that
teammate: it carries the tmux option @paneteam-agent), removes the member
from config.json, and puts its unfinished tasks back to pending with no
owner, as Claude Code does when a teammate shuts down.

    paneteam kill-pane --team review --name alice

A pane that is already gone is fine: the member is still removed. To ask a
Claude Code teammate to finish its work first, use 'paneteam shutdown'.`,
		Flags: []ucli.Flag{teamFlag(), memberFlag("teammate to stop"), jsonFlag()},
		Action: func(c *ucli.Context) error {
			t, cfg, m, err := memberOf(c, env)
			if err != nil {
				return err
			}
			b, err := backend.ForMember(backendEnv(env), cfg, m)
			if err != nil {
				return err
			}
			if err := b.Kill(c.Context, cfg, m); err != nil {
				return fmt.Errorf("stop %s: %w", m.Name, err)
			}
			_, err = t.Update(c.Context, lockOpts(c), func(cur *team.Config) error {
				if !cur.RemoveMember(m.Name) {
					return team.ErrNoChange
				}
				cur.HiddenPaneIDs = slices.DeleteFunc(cur.HiddenPaneIDs, func(id string) bool { return id == m.TmuxPaneID })
				return nil
			})
			if err != nil {
				return err
			}
			released, err := team.ReleaseTasks(c.Context, t, lockOpts(c), m.Name)
			if err != nil {
				return fmt.Errorf("%s stopped and left the team, but its tasks were not released: %w", m.Name, err)
			}
			if c.Bool("json") {
				if released == nil {
					released = []string{}
				}
				return printJSON(env.Stdout, map[string]any{"agent_id": m.AgentID, "pane_id": m.TmuxPaneID, "released_tasks": released})
			}
			msg := "stopped " + m.AgentID
			if len(released) > 0 {
				msg += "; tasks back to pending: " + strings.Join(released, ", ")
			}
			_, err = fmt.Fprintln(env.Stdout, msg)
			return err
		},
	}
}

// memberFlag is --name for commands acting on one teammate.
func memberFlag(usage string) ucli.Flag {
	return &ucli.StringFlag{Name: "name", Aliases: []string{"n"}, Usage: usage}
}

// memberOf opens the team and finds the teammate named by --name; the lead
// is refused (its pane is the user's own).
func memberOf(c *ucli.Context, env Env) (team.Team, *team.Config, *team.Member, error) {
	name := c.String("name")
	if name == "" {
		return team.Team{}, nil, nil, usagef("no teammate given: pass --name NAME")
	}
	t, cfg, err := openTeam(c, env)
	if err != nil {
		return t, nil, nil, err
	}
	m := cfg.Member(name)
	if m == nil {
		return t, nil, nil, fmt.Errorf("team %s has no member %q (members: %s)", t.Name, name, strings.Join(cfg.MemberNames(), ", "))
	}
	if m.Name == team.LeadName {
		return t, nil, nil, usagef("%s is the lead, whose pane is yours: paneteam only manages teammates' panes", m.Name)
	}
	return t, cfg, m, nil
}
