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
			file, err := readPaneExecFile(c)
			if err != nil {
				return err
			}
			return native.RunExecFile(file)
		},
	}
}

// readPaneExecFile is pane-exec's one argument: the launch file.
func readPaneExecFile(c *ucli.Command) (string, error) {
	a := c.Args().Slice()
	if len(a) != 1 {
		return "", usagef("pane-exec FILE")
	}
	return a[0], nil
}
