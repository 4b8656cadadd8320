package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/panes/shim"
)

// shimGateCommand is what a pane paneteam opens for Claude Code's lead in
// kitty, WezTerm, Zellij or iTerm2 runs until the lead hands it the
// teammate's command; never run by people.
func shimGateCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:            shim.GateCommand,
		Usage:           "(internal) hold a pane for Claude Code's teammate until its command comes",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(ctx context.Context, c *ucli.Command) error {
			file, err := readShimGateFile(c)
			if err != nil {
				return err
			}
			return shim.Gate(file, env.Environ())
		},
	}
}

// readShimGateFile is the gate's one argument: the file its command
// comes in.
func readShimGateFile(c *ucli.Command) (string, error) {
	if c.Args().Len() != 1 {
		return "", usagef("%s takes one file", shim.GateCommand)
	}
	return c.Args().First(), nil
}
