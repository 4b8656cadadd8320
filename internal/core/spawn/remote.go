package spawn

import (
	"context"
	"io"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/remote"
)

// Remote runs another launcher's teammate on a host: the command and
// variables Inner builds run there (see remote.Start), and the pane on
// the lead runs the ssh session that shows it.
type Remote struct {
	Inner Program
	Host  string
	// Cwd is the teammate's folder on the host ("": the remote user's
	// home). The code is not synced: it is whatever the host has there.
	Cwd string
	// Exe is the lead's paneteam binary.
	Exe    string
	Getenv func(string) string
	// Claude links the team into the host's config folder.
	Claude     bool
	Unconfined bool
	// SSHFS mounts the team even where the host shares its folder.
	SSHFS bool
	Say   io.Writer
}

// Check checks the host name only: the program is looked for on the host
// once connected (remote.Start), not on this machine.
func (l *Remote) Check(_ context.Context, _ string, _ post.Caller) error {
	return remote.CheckHost(l.Host)
}

// Prepare builds the teammate's command with Inner, then connects, mounts
// and returns the pane's ssh command line; Undo takes back both. The
// host's start lock stays held until the pane is started (Started).
func (l *Remote) Prepare(ctx context.Context, s Setup) (Prepared, error) {
	in, err := l.Inner.Prepare(ctx, s)
	if err != nil {
		return Prepared{}, err
	}
	var release func()
	argv, undo, err := remote.Start(ctx, remote.Spawn{
		Getenv: l.Getenv, Host: l.Host, Root: s.Team.Root, Team: filepath.Base(s.Team.Dir()), Member: s.Member.Name,
		Exe: l.Exe, Argv: in.Argv, Env: in.Env, Cwd: l.Cwd, Claude: l.Claude, Unconfined: l.Unconfined, SSHFS: l.SSHFS, Say: l.Say,
		Hold: func(r func()) { release = r },
	})
	if err != nil {
		if in.Undo != nil {
			in.Undo()
		}
		return Prepared{}, err
	}
	return Prepared{Argv: argv, Env: in.Env, Signer: in.Signer, Keyed: in.Keyed, Undo: func() {
		undo()
		if in.Undo != nil {
			in.Undo()
		}
	}, Started: release, CLI: in.CLI, SessionID: in.SessionID, Shutdown: in.Shutdown, Host: l.Host, HostCwd: l.Cwd, HostArgv: in.Argv}, nil
}
