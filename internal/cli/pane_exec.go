package cli

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/panes/native"
)

// paneExecCommand is the fixed line a native driver types into a new
// iTerm2 session ('exec <paneteam> pane-exec <file>'), never run by
// people: it becomes the program the launch file names (native.RunExecFile).
func paneExecCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:            "pane-exec",
		Usage:           "(internal) run the program a pane's 0600 launch file names, then remove the file",
		ArgsUsage:       "FILE",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(ctx context.Context, c *ucli.Command) error {
			a := c.Args().Slice()
			if len(a) != 1 {
				return usagef("pane-exec FILE")
			}
			return native.RunExecFile(a[0])
		},
	}
}
