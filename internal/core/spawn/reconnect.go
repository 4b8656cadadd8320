package spawn

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// Reconnection is a teammate of another host to start again: one whose
// connection dropped (or froze, or whose host rebooted) and whose pane
// here is dead. It keeps its member row, name, colour and inbox.
type Reconnection struct {
	Team       team.Team
	Config     *team.Config
	Member     *team.Member
	BackendEnv backend.Env
	Getenv     func(string) string
	// Exe is the lead's paneteam binary.
	Exe string
	// Say receives what the connection tells the person.
	Say io.Writer
}

// Reconnected is where the teammate runs again ('paneteam reconnect
// --json').
type Reconnected struct {
	Name    string `json:"name"`
	Host    string `json:"host"`
	PaneID  string `json:"pane_id"`
	Backend string `json:"backend"`
}

// Reconnect starts r's teammate again on its host (remote.Reconnect), with
// the same command, variables and folder there, in a new pane of the
// backend that ran it, closes the dead pane and records the new one in
// the member's row. It refuses a teammate whose pane is still running and
// one that does not run on another host; a failure after the host was
// reached undoes it there.
func Reconnect(ctx context.Context, r Reconnection) (Reconnected, error) {
	t, cfg, m := r.Team, r.Config, r.Member
	teamDir := filepath.Base(t.Dir())
	host := remote.Host(r.Getenv, t.Root, teamDir, m.Name)
	if host == "" {
		return Reconnected{}, &NotRemoteError{Member: visible.Line(m.Name)}
	}
	b, err := backend.ForMember(r.BackendEnv, cfg, m)
	if err != nil {
		return Reconnected{}, err
	}
	if alive, err := b.Alive(ctx, cfg, m); err == nil && alive {
		return Reconnected{}, fmt.Errorf("%s's pane %s is still running: reconnect is for a teammate whose connection ended; kill-pane it to start over", visible.Line(m.Name), m.TmuxPaneID)
	}
	// The host's start lock is held until the new pane is open, so no
	// other start takes the session the pane needs.
	release := func() {}
	argv, undo, err := remote.Reconnect(ctx, r.Getenv, t.Root, teamDir, m.Name, r.Exe, r.Say, func(f func()) { release = f })
	if err != nil {
		return Reconnected{}, err
	}
	if m.TmuxPaneID != "" {
		b.Kill(ctx, cfg, m) // the dead pane; one already gone is fine
	}
	pane, err := b.Spawn(ctx, backend.Spec{Team: t, Config: cfg, Member: *m, Argv: argv,
		Env: []string{"PANETEAM_ROOT=" + t.Root}, StartupCheck: DefaultStartupCheck})
	if err != nil {
		undo()
		return Reconnected{}, fmt.Errorf("start %s's pane: %w", m.Name, err)
	}
	release()
	_, err = t.Update(ctx, lockfile.Options{}, func(cur *team.Config) error {
		row := cur.Member(m.Name)
		if row == nil || row.AgentID != m.AgentID {
			return fmt.Errorf("%s left the team while it reconnected", m.Name)
		}
		SetPane(row, pane)
		return nil
	})
	if err != nil {
		if derr := backend.Discard(ctx, b, cfg, *m, pane); derr != nil {
			err = fmt.Errorf("%w (and ending its pane %s failed: %v)", err, pane.ID, derr)
		}
		undo()
		return Reconnected{}, err
	}
	movedLaunch(r.Getenv, t, m.Name, pane, r.Say)
	return Reconnected{Name: m.Name, Host: host, PaneID: pane.ID, Backend: pane.Backend}, nil
}

// NotRemoteError is a reconnect of a member that this machine started on
// no other host.
type NotRemoteError struct{ Member string }

func (e *NotRemoteError) Error() string {
	return fmt.Sprintf("%s does not run on another host (none was started for it from this machine): nothing to reconnect", e.Member)
}

// SetPane points a member's row at the pane it runs in now (a resume's,
// a reconnect's), keeping what paneteam recorded of the member itself
// over the new pane's: whether it holds a signing key, which CLI it runs,
// how it answers a shutdown.
func SetPane(row *team.Member, pane backend.Pane) {
	var was team.MemberMeta
	if row.Paneteam != nil {
		was = *row.Paneteam
	}
	row.TmuxPaneID, row.BackendType, row.Paneteam = pane.ID, pane.Backend, pane.Meta
	if row.Paneteam == nil {
		row.Paneteam = &team.MemberMeta{}
	}
	row.Paneteam.Keyed, row.Paneteam.CLI, row.Paneteam.Shutdown = was.Keyed, was.CLI, was.Shutdown
}
