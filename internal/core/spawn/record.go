package spawn

import (
	"fmt"
	"io"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/team"
)

// launchRecord is what was started for m: the command as it runs (on
// the host, for a teammate there), the folder it really runs in (after
// its worktree), its session, backend and pane.
func launchRecord(r Request, m team.Member, l Prepared, pane backend.Pane) launches.Record {
	argv, cwd := l.Argv, m.Cwd
	if l.Host != "" {
		argv, cwd = l.HostArgv, l.HostCwd
	}
	rec := launches.Record{Root: r.Team.Root, Team: r.Team.Name, Agent: m.Name, CLI: l.CLI, Via: launches.ViaSpawnPane,
		Cwd: cwd, Host: l.Host, SessionID: l.SessionID, Backend: pane.Backend, Pane: pane.ID}
	if l.Host == "" {
		rec.ConfigDir = l.ConfigDir
	}
	if len(argv) > 0 {
		rec.Program, rec.Args = argv[0], argv[1:]
	}
	if l.Host == "" {
		rec.Env = recordedEnv(withRoot(l.Env, r.Team.Root), r.Caller.Env("PATH"))
	}
	SetProcess(&rec, pane)
	return rec
}

// SetProcess points rec at the process and server of pane: its pid and
// start time, and its tmux socket, which resume believes over the member
// row in config.json (others write that) when it asks whether the
// teammate still runs. The row keeps its own paneteam.* fields, which
// other readers use.
func SetProcess(rec *launches.Record, pane backend.Pane) {
	rec.PID, rec.PIDStart, rec.TmuxSocket = 0, "", ""
	if pane.Meta != nil {
		rec.PID, rec.PIDStart, rec.TmuxSocket = pane.Meta.PID, pane.Meta.PIDStart, pane.Meta.TmuxSocket
	}
}

// keepLaunch writes m's launch record in the caller's state folder. The
// teammate runs whatever happens here: a record that cannot be written
// is a warning, never a failed spawn. A caller without an environment
// (Caller.Getenv nil) keeps none, rather than guess a state folder.
func keepLaunch(r Request, m team.Member, l Prepared, pane backend.Pane) {
	if r.Caller.Getenv == nil {
		return
	}
	state, err := provenance.StateDir(r.Caller.Getenv)
	if err == nil {
		err = launches.Open(state).Write(launchRecord(r, m, l, pane))
	}
	if err != nil && r.Caller.Warn != nil {
		r.Caller.Warn("warning: %s runs, but its launch was not recorded (resume and worktrees will not find it): %v", m.Name, err)
	}
}

// keptLaunch returns what puts m's launch record back as it is now (an
// earlier teammate's of the name, or none), for a spawn that wrote its
// record before it knew it would succeed.
func keptLaunch(r Request, m team.Member) (putBack func()) {
	if r.Caller.Getenv == nil {
		return func() {}
	}
	state, err := provenance.StateDir(r.Caller.Getenv)
	if err != nil {
		return func() {}
	}
	store := launches.Open(state)
	old, err := store.Read(r.Team.Root, r.Team.Name, m.Name)
	return func() {
		switch {
		case err != nil:
		case old != nil:
			store.Write(*old)
		default:
			store.Forget(r.Team.Root, r.Team.Name, m.Name)
		}
	}
}

// movedLaunch points m's launch record, if it has one, at the pane it
// runs in now (Reconnect); the command and folder are the same.
func movedLaunch(getenv func(string) string, t team.Team, name string, pane backend.Pane, say io.Writer) {
	if getenv == nil {
		return
	}
	state, err := provenance.StateDir(getenv)
	if err != nil {
		return
	}
	store := launches.Open(state)
	rec, err := store.Read(t.Root, t.Name, name)
	if err == nil && rec != nil {
		rec.Backend, rec.Pane = pane.Backend, pane.ID
		SetProcess(rec, pane)
		err = store.Write(*rec)
	}
	if err != nil && say != nil {
		fmt.Fprintf(say, "paneteam: warning: %s's launch record still names its old pane: %v\n", name, err)
	}
}

// recordedEnv is what a resume adds to the teammate's environment: what
// the spawn added, and the PATH it found the program on (a resume from
// cron or a tmux hook has another).
func recordedEnv(env []string, path string) []string {
	out := append([]string(nil), env...)
	if path == "" {
		return out
	}
	return envlist.Default(out, "PATH", path)
}
