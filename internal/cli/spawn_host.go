package cli

import (
	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/remote"
)

// hostHelp is spawn-pane's help on --host.
const hostHelp = `

--host HOST runs the teammate on another machine, over ssh (ssh on PATH,
or the command line in PANETEAM_SSH, as git's GIT_SSH_COMMAND): its pane
here shows an ssh session, and on HOST it sees this team's folders, and
nothing else of this machine, through sshfs, inside HOST's own config
folder. --cwd is then a folder on HOST (default: the home folder there);
the code is not copied. HOST needs sshfs and access to /dev/fuse;
paneteam copies itself there when needed and says so.

When HOST sees this team's folders at the same path (a shared file system
such as NFS mounted at the same place on both machines), paneteam uses
them as they are, with no sshfs mount, once a test file it writes here
is read back and removed on HOST; a different folder at that path gets
the sshfs mount, and paneteam says why. --sshfs always mounts.

    paneteam spawn-pane --team review --name builder --host big-box --cwd src/app --claude`

func hostFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "host", Usage: "run the teammate on this ssh host (a name from your ssh config, or user@host); see below"},
		&ucli.BoolFlag{Name: "sshfs", Usage: "with --host, mount the team on HOST with sshfs even when HOST shares its folder at the same path (NFS)"},
		&ucli.BoolFlag{Name: "unconfined", Usage: "with --host, where the sftp server cannot be confined (not Linux): let HOST read and write everything you can"},
	}
}

// hostOptions are --host and the flags that go with it.
type hostOptions struct {
	Host       string
	SSHFS      bool
	Unconfined bool
}

func readHostOptions(c *ucli.Command) hostOptions {
	return hostOptions{Host: readFlags(c).String("host"), SSHFS: readFlags(c).Bool("sshfs"), Unconfined: readFlags(c).Bool("unconfined")}
}

// onHost makes r start its teammate on --host, when given; cwd is --cwd,
// a folder there.
func onHost(env Env, r *spawn.Request, h hostOptions, cwd string, claude bool) error {
	if h.Host == "" {
		if h.Unconfined {
			return usagef("--unconfined goes with --host")
		}
		if h.SSHFS {
			return usagef("--sshfs goes with --host")
		}
		return nil
	}
	if err := remote.CheckHost(h.Host); err != nil {
		return usagef("%v", err)
	}
	if r.Worktree {
		return usagef("--worktree makes a worktree on this machine, and a teammate on --host works in a folder there: give --cwd on the host instead")
	}
	r.Program = &spawn.Remote{Inner: r.Program, Host: h.Host, Cwd: cwd, Exe: env.Exe, Getenv: env.Getenv,
		Claude: claude, Unconfined: h.Unconfined, SSHFS: h.SSHFS, Say: env.Stderr}
	return nil
}
