package cli

import (
	"context"
	"os"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/panes/ptyhost"
)

// hostCommand is the in-process backend's host: started detached by
// 'spawn-pane --backend in-process', never by people. It runs the
// teammate's command under a pseudo-terminal and serves 'paneteam attach'.
func hostCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:            ptyhost.HostCommand,
		Usage:           "(internal) host an in-process teammate under a pseudo-terminal",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readInProcessHostOptions(c)
			if err != nil {
				return err
			}
			// The launcher reads the ready line on fd 3 (ptyhost.Start).
			return ptyhost.Serve(ctx, o, os.NewFile(3, "ready"))
		},
	}
}

// readInProcessHostOptions reads the host's arguments, as
// ptyhost.Start writes them.
func readInProcessHostOptions(c *ucli.Command) (ptyhost.Options, error) {
	o, err := ptyhost.ParseArgs(c.Args().Slice())
	if err != nil {
		return o, usagef("%v", err)
	}
	return o, nil
}
