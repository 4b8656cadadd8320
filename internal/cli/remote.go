package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/remote"
)

func reconnectCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "reconnect",
		Usage: "start again a teammate on another host whose connection ended",
		Description: `A teammate started with spawn-pane --host whose connection dropped (or
froze, or whose host rebooted) stays a member with a dead pane. reconnect
connects to its host again, mounts the team there again and starts the
same command, with the same variables and folder there, in a new pane.
It keeps the member, its name, colour and inbox: messages sent to it
meanwhile are waiting there. The dead pane is closed.

    paneteam reconnect --team review --name builder

It refuses a teammate whose pane or connection is still up (kill-pane it
to start over) and one that does not run on another host.`,
		Flags: []ucli.Flag{teamFlag(), memberFlag("teammate to start again on its host"), jsonFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readReconnectOptions(c)
			if err != nil {
				return err
			}
			return runReconnect(ctx, env, o)
		},
	}
}

type reconnectOptions struct {
	Member memberScope
	JSON   bool
}

func readReconnectOptions(c *ucli.Command) (reconnectOptions, error) {
	if c.NArg() > 0 {
		return reconnectOptions{}, usagef("reconnect takes no arguments (got %q): name the teammate with --name", c.Args().First())
	}
	return reconnectOptions{Member: readMemberScope(c), JSON: readFlags(c).Bool("json")}, nil
}

func runReconnect(ctx context.Context, env Env, o reconnectOptions) error {
	t, cfg, m, err := o.Member.open(ctx, env)
	if err != nil {
		return err
	}
	res, err := spawn.Reconnect(ctx, spawn.Reconnection{Team: t, Config: cfg, Member: m,
		BackendEnv: backendEnv(env), Getenv: env.Getenv, Exe: env.Exe, Say: env.Stderr})
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(env.Stdout, res)
	}
	showf(env.Stdout, "%s reconnected on %s in %s pane %s\n", res.Name, res.Host, res.Backend, res.PaneID)
	return nil
}

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
					o, err := readSFTPJailOptions(c)
					if err != nil {
						return err
					}
					return remote.ServeConfined(o.Root, o.Team)
				},
			},
			{
				Name:            "run",
				Usage:           "(internal) run a teammate on this host while its mount of the team lives",
				ArgsUsage:       "JOB",
				SkipFlagParsing: true,
				Action: func(ctx context.Context, c *ucli.Command) error {
					job, err := readRemoteJob(c)
					if err != nil {
						return err
					}
					return runRemoteJob(ctx, job)
				},
			},
		},
	}
}

// sftpJailOptions are 'remote sftp-jail ROOT TEAM': the team whose folders
// are served.
type sftpJailOptions struct{ Root, Team string }

func readSFTPJailOptions(c *ucli.Command) (sftpJailOptions, error) {
	a := c.Args().Slice()
	if len(a) != 2 {
		return sftpJailOptions{}, usagef("remote sftp-jail ROOT TEAM")
	}
	return sftpJailOptions{Root: a[0], Team: a[1]}, nil
}

// readRemoteJob is 'remote run JOB': the job the lead encoded.
func readRemoteJob(c *ucli.Command) (remote.Job, error) {
	a := c.Args().Slice()
	if len(a) != 1 {
		return remote.Job{}, usagef("remote run JOB")
	}
	return remote.DecodeJob(a[0])
}

func runRemoteJob(ctx context.Context, job remote.Job) error {
	err := remote.Run(ctx, job, os.Stderr)
	// The pane ends with the teammate's own exit code.
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() > 0 {
		return exitError{code: exit.ExitCode(), err: err}
	}
	return err
}
