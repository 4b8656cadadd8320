package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
)

func hideCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "hide",
		Usage: "move a teammate's pane out of sight; it keeps running",
		Description: `Moves the teammate's tmux pane into the session "paneteam-hidden" and
re-lays out the window it left. The teammate keeps working; its pane id is
recorded in config.json's hiddenPaneIds. Bring it back with 'paneteam show'.
A teammate Claude Code started itself is refused: its pane is Claude's.

    paneteam hide --team review --name alice`,
		Flags:  []ucli.Flag{teamFlag(), memberFlag("teammate to hide")},
		Action: func(ctx context.Context, c *ucli.Command) error { return moveMember(ctx, c, env, true, nil) },
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
		Action: func(ctx context.Context, c *ucli.Command) error {
			if _, _, err := readLayout(c).over(layout.Policy{}); err != nil {
				return err
			}
			return moveMember(ctx, c, env, false, func(cfg *team.Config) (layout.Policy, bool, error) {
				return readLayout(c).over(backend.TeamLayout(cfg))
			})
		},
	}
}

// moveMember hides or shows the member --name names (backend.SetHidden),
// after refusing the lead and Claude Code's own teammates (memberOf).
func moveMember(ctx context.Context, c *ucli.Command, env Env, hide bool, show backend.ShowLayout) error {
	t, _, m, err := readMemberScope(c).open(ctx, env)
	if err != nil {
		return err
	}
	return backend.SetHidden(ctx, backendEnv(env), t, readLock(c), m.Name, hide, show)
}
