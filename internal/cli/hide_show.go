package cli

import (
	"context"
	"fmt"
	"slices"

	ucli "github.com/urfave/cli/v2"

	"github.com/paneteam/paneteam/backend"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
)

// paneMover is a backend that can take a pane out of sight and back
// (tmux: a hidden session).
type paneMover interface {
	Hide(ctx context.Context, cfg *team.Config, m *team.Member) error
	Show(ctx context.Context, cfg *team.Config, m *team.Member, pol layout.Policy) error
}

func hideCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "hide",
		Usage: "move a teammate's pane out of sight; it keeps running",
		Description: `Moves the teammate's tmux pane into the session "paneteam-hidden" and
re-lays out the window it left. The teammate keeps working; its pane id is
recorded in config.json's hiddenPaneIds. Bring it back with 'paneteam show'.
A teammate Claude Code started itself is refused: its pane is Claude's.

    paneteam hide --team review --name alice`,
		Flags: []ucli.Flag{teamFlag(), memberFlag("teammate to hide")},
		Action: func(c *ucli.Context) error {
			return moveMember(c, env, true, func(mv paneMover, cfg *team.Config, m *team.Member) error {
				return mv.Hide(c.Context, cfg, m)
			}, nil)
		},
	}
}

func showCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "show",
		Usage: "bring a hidden teammate's pane back beside the lead",
		Description: `Moves a pane hidden with 'paneteam hide' back where a new teammate would
go (beside the lead inside tmux, into the private session outside) and
re-lays out the window.

    paneteam show --team review --name alice`,
		Flags: append([]ucli.Flag{teamFlag(), memberFlag("teammate to show")}, layoutFlags()...),
		Action: func(c *ucli.Context) error {
			if _, _, err := layoutChoice(c, layout.Policy{}); err != nil {
				return err
			}
			var pol layout.Policy
			var keep bool
			return moveMember(c, env, false, func(mv paneMover, cfg *team.Config, m *team.Member) error {
				var err error
				if pol, keep, err = layoutChoice(c, backend.TeamLayout(cfg)); err != nil {
					return err
				}
				return mv.Show(c.Context, cfg, m, pol)
			}, func(cur *team.Config) bool {
				if keep {
					backend.KeepLayout(cur, pol)
				}
				return keep
			})
		},
	}
}

// moveMember hides or shows a member's pane and records it in
// hiddenPaneIds; record, if any, makes further changes to the config in
// the same write and says whether it did.
func moveMember(c *ucli.Context, env Env, hide bool, move func(paneMover, *team.Config, *team.Member) error, record func(*team.Config) bool) error {
	t, cfg, m, err := memberOf(c, env)
	if err != nil {
		return err
	}
	b, err := backend.ForMember(backendEnv(env), cfg, m)
	if err != nil {
		return err
	}
	mv, ok := b.(paneMover)
	if !ok {
		return fmt.Errorf("%s runs on the %s backend, which has no panes to hide or show", m.Name, b.Name())
	}
	if err := move(mv, cfg, m); err != nil {
		return err
	}
	_, err = t.Update(c.Context, lockOpts(c), func(cur *team.Config) error {
		had := slices.Contains(cur.HiddenPaneIDs, m.TmuxPaneID)
		changed := record != nil && record(cur)
		switch {
		case hide && !had:
			cur.HiddenPaneIDs = append(cur.HiddenPaneIDs, m.TmuxPaneID)
		case !hide && had:
			cur.HiddenPaneIDs = slices.DeleteFunc(cur.HiddenPaneIDs, func(id string) bool { return id == m.TmuxPaneID })
		case !changed:
			return team.ErrNoChange
		}
		return nil
	})
	return err
}
