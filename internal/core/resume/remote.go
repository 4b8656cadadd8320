package resume

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

// reconnect starts a member on another host again, as 'paneteam
// reconnect' does.
func (o Options) reconnect(ctx context.Context, m member, s Started) Started {
	s.How, s.Backend = Reconnected, m.rec.Backend
	if err := o.connectionKept(m); err != nil {
		s.Error = err.Error()
		return s
	}
	if o.DryRun {
		return s
	}
	cfg, err := team.Load(o.Team.ConfigPath())
	if err == nil {
		row := cfg.Member(m.row.Name)
		if row == nil {
			err = fmt.Errorf("%s left the team", m.row.Name)
		} else {
			var r spawn.Reconnected
			r, err = spawn.Reconnect(ctx, spawn.Reconnection{Team: o.Team, Config: cfg, Member: row,
				BackendEnv: o.BackendEnv, Getenv: o.Caller.Getenv, Exe: o.Exe, Say: o.Say})
			s.PaneID, s.Backend = r.PaneID, r.Backend
		}
	}
	if err != nil {
		s.Error = err.Error()
	}
	return s
}

// connectionKept is nil when this machine still holds the record of the
// member's connection that reconnecting needs (how to mount the team and
// run it there). It lives in $XDG_RUNTIME_DIR, which a reboot or the
// end of the person's last login empties while the launch record stays:
// the error then says so and how to start it again, rather than that it
// never ran on another host.
func (o Options) connectionKept(m member) error {
	if remote.Host(o.Caller.Env, o.Team.Root, filepath.Base(o.Team.Dir()), m.row.Name) != "" {
		return nil
	}
	kill := remote.Line("paneteam", "kill-pane", "--team", o.Team.Name, "--name", m.row.Name)
	again := remote.Line(append([]string{"paneteam", "spawn-pane", "--team", o.Team.Name, "--name", m.row.Name, "--host", m.rec.Host, "--", m.rec.Program}, m.rec.Args...)...)
	return fmt.Errorf("it ran on %s, but this machine's record of its connection (in %s, which a reboot or logout empties) is gone: "+
		"start it again with '%s' then '%s'", visible.Line(m.rec.Host),
		remote.StateDir(o.Caller.Env, o.Team.Root, filepath.Base(o.Team.Dir())), visible.Line(kill), visible.Line(again))
}
