package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/remote"
)

// remoteCommand holds what 'spawn-pane --host' starts, never people: on
// the lead, the sftp-server confined to one team's folders; on the host,
// the process that runs a teammate on its mount of the team.
func remoteCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:   "remote",
		Usage:  "(internal) the two ends of a teammate on another machine",
		Hidden: true,
		Commands: []*ucli.Command{
			{
				Name:            "sftp-jail",
				Usage:           "(internal) serve ROOT's teams/TEAM and tasks/TEAM, nothing else, over SFTP on stdin and stdout",
				ArgsUsage:       "ROOT TEAM",
				SkipFlagParsing: true,
				Action: func(ctx context.Context, c *ucli.Command) error {
					a := c.Args().Slice()
					if len(a) != 2 {
						return usagef("remote sftp-jail ROOT TEAM")
					}
					return remote.ServeConfined(a[0], a[1])
				},
			},
			{
				Name:            "run",
				Usage:           "(internal) run a teammate on this host while its mount of the team lives",
				ArgsUsage:       "JOB",
				SkipFlagParsing: true,
				Action: func(ctx context.Context, c *ucli.Command) error {
					a := c.Args().Slice()
					if len(a) != 1 {
						return usagef("remote run JOB")
					}
					job, err := remote.DecodeJob(a[0])
					if err != nil {
						return err
					}
					err = remote.Run(ctx, job, os.Stderr)
					// The pane ends with the teammate's own exit code.
					var exit *exec.ExitError
					if errors.As(err, &exit) && exit.ExitCode() > 0 {
						return exitError{code: exit.ExitCode(), err: err}
					}
					return err
				},
			},
		},
	}
}
