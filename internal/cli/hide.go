package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/panes/backend"
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
		Action: func(ctx context.Context, c *ucli.Command) error { return runHide(ctx, env, readHideOptions(c)) },
	}
}

// hideOptions are hide's flags: the teammate.
type hideOptions struct{ Member memberScope }

func readHideOptions(c *ucli.Command) hideOptions { return hideOptions{Member: readMemberScope(c)} }

// runHide moves the teammate's pane out of sight (backend.SetHidden),
// after refusing the lead and Claude Code's own teammates (memberScope).
func runHide(ctx context.Context, env Env, o hideOptions) error {
	t, _, m, err := o.Member.open(ctx, env)
	if err != nil {
		return err
	}
	return backend.SetHidden(ctx, backendEnv(env), t, o.Member.Scope.Lock, m.Name, true, nil)
}
