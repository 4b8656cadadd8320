package backend

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

func init() { registry[team.BackendTmux] = newTmux }

// PrivateSession is the session of paneteam's own tmux server, used when
// the lead is not inside tmux (Claude Code's is "claude-swarm").
const PrivateSession = "paneteam"

// privateSize is the size of a private session until someone attaches
// (tmux then resizes it to the terminal).
const privateWidth, privateHeight = 200, 50

// Tmux starts teammates in tmux panes: beside the lead's pane when the
// lead runs inside tmux, else on a private server paneteam starts.
type Tmux struct {
	env Env
	// last is where the most recent Spawn put its pane, for RecordTeam.
	last placement
}

func newTmux(env Env, _ *team.Config) (Backend, error) {
	if _, err := env.Find("tmux"); err != nil {
		return nil, fmt.Errorf("%w: install tmux, or use --backend in-process", tmux.ErrNotInstalled)
	}
	return &Tmux{env: env}, nil
}

// Name is the backendType of its members.
func (b *Tmux) Name() string { return team.BackendTmux }

// placement is the server a team's panes live on and, inside tmux, the
// lead's pane.
type placement struct {
	srv     tmux.Server
	private bool
	leader  string // the lead's pane id; "" on a private server
	socket  string
}

// place decides where new panes go. Inside tmux ($TMUX and $TMUX_PANE as
// captured at start, as Claude Code does): the lead's server and pane.
// Outside: the private server recorded for the team, else a new one of
// the team's own (PrivateServerName, tmux -L), so the user's default
// server is never touched.
func (b *Tmux) place(t team.Team, cfg *team.Config) (placement, error) {
	if v := b.env.Getenv("TMUX"); v != "" {
		srv, err := tmux.FromTMUX(v)
		if err != nil {
			return placement{}, err
		}
		pane := b.env.Getenv("TMUX_PANE")
		if pane == "" {
			return placement{}, errors.New("$TMUX is set but $TMUX_PANE is not: run paneteam from a shell inside a tmux pane")
		}
		return placement{srv: srv, leader: pane, socket: srv.Socket}, nil
	}
	var meta team.TeamMeta
	if cfg != nil && cfg.Paneteam != nil {
		meta = *cfg.Paneteam
	}
	srv := tmux.Server{Config: b.env.Getenv("PANETEAM_TMUX_CONFIG"), TmpDir: b.env.Getenv("TMUX_TMPDIR")}
	if meta.TmuxPrivate && meta.TmuxSocket != "" {
		srv.Socket = meta.TmuxSocket
	} else {
		pid := meta.LeaderPID
		if pid == 0 {
			pid = os.Getpid()
		}
		if t.Name == "" {
			t.Name = teamName(cfg)
		}
		srv.Name = PrivateServerName(pid, t)
	}
	sock, err := srv.SocketPath()
	if err != nil {
		return placement{}, err
	}
	return placement{srv: srv, private: true, socket: sock}, nil
}

// PrivateServerName is the tmux -L name of the private server of team t
// led by process pid: "paneteam-<pid>-<team>-<8 hex>", the team's name
// (cut to privateTeamChars) for a person reading tmux's socket folder, and
// a digest of the team's folder so that two teams never share one, even
// of the same name under two roots or cut to the same prefix.
//
// A server per team, not a window per team on one server per lead: a
// private server is the team's own in everything that handles it. Its
// "paneteam" session is the team's window (Spawn, Show, 'paneteam
// attach'), a failed spawn stops it when nothing else is on it, cleanup
// stops it once no pane but the team's is left, and the orphan reaper
// stops it with its team. On a server shared by a lead's teams, the second
// team found only the first's panes in that session and had none to split
// ("no pane of this team in the window to split"), and cleaning one team
// would have had to leave the server to the others, each step learning
// which panes are whose. Servers are cheap: one process each.
func PrivateServerName(pid int, t team.Team) string {
	name := team.SanitizeTeam(t.Name)
	if len(name) > privateTeamChars {
		name = name[:privateTeamChars]
	}
	dir := t.Dir()
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	sum := sha256.Sum256([]byte(dir))
	return "paneteam-" + strconv.Itoa(pid) + "-" + name + "-" + hex.EncodeToString(sum[:4])
}

// privateTeamChars bounds the team's part of a private server's name, so
// its socket path stays well under the 104 bytes a Unix socket's path may
// have on macOS (108 on Linux) below a usual $TMUX_TMPDIR.
const privateTeamChars = 24

// Spawn starts s in a new pane and returns once the command runs (see
// watch for the failure check).
func (b *Tmux) Spawn(ctx context.Context, s Spec) (Pane, error) {
	return b.SpawnWhile(ctx, s, nil)
}

// SpawnWhile is Spawn that runs while(p) during the startup check, once
// the pane is made and its command let go, with p the pane Spawn returns
// when the check finds the command running (its process is the gate's
// sh, which execs the command); it returns once both are done. A caller
// records the pane there rather than after the check, whose wait would
// otherwise come first. When Spawn fails, or returns another pane (the
// command exited at once and its pane closed), what while recorded is
// the caller's to take back or correct.
func (b *Tmux) SpawnWhile(ctx context.Context, s Spec, while func(Pane)) (Pane, error) {
	pl, err := b.place(s.Team, s.Config)
	if err != nil {
		return Pane{}, err
	}
	made, err := b.create(ctx, pl, s)
	if err != nil {
		return Pane{}, err
	}
	pane := made.ID
	b.last = pl
	var done chan struct{}
	if while != nil {
		done = make(chan struct{})
		go func() {
			defer close(done)
			while(Pane{ID: pane, Backend: team.BackendTmux, Meta: paneMeta(pl, made.PID)})
		}()
	}
	info, err := watch(ctx, pl.srv, pane, s.StartupCheck)
	if done != nil {
		<-done
	}
	var exited *ExitedError
	switch {
	case errors.As(err, &exited):
		// The dead pane stays to show why, where someone can see it;
		// a private server holding nothing else is stopped instead (the
		// error carries the pane's last lines).
		exited.Stopped = b.discard(ctx, pl, pane, s.Member.AgentID, true)
		return Pane{ID: pane, Backend: team.BackendTmux}, err
	case err != nil:
		// The command runs, but the spawn failed (interrupted, or tmux
		// could not be read): nothing of it may stay.
		b.discard(ctx, pl, pane, s.Member.AgentID, false)
		return Pane{}, err
	}
	if info.ID == "" {
		b.env.warn("the command of %s has already exited (status 0) and its pane %s closed", s.Member.Name, pane)
	}
	return Pane{ID: pane, Backend: team.BackendTmux, Meta: paneMeta(pl, info.PID)}, nil
}

// paneMeta is what is recorded of a pane whose process is pid (0: none).
func paneMeta(pl placement, pid int) *team.MemberMeta {
	meta := &team.MemberMeta{TmuxSocket: pl.socket}
	if pid > 0 {
		meta.PID = pid
		meta.PIDStart, _ = proc.StartTime(pid)
	}
	return meta
}

// create makes the pane and starts the command, holding the server's pane
// lock so that concurrent spawns each see the others' panes.
func (b *Tmux) create(ctx context.Context, pl placement, s Spec) (_ tmux.NewPane, err error) {
	unlock, err := pl.srv.Lock(ctx)
	if err != nil {
		return tmux.NewPane{}, err
	}
	stopped := false
	defer func() {
		unlock()
		if stopped {
			pl.srv.RemoveLock()
		}
	}()
	defer func() {
		if err != nil {
			// A private server this spawn started goes with its pane.
			stopped = b.stopIfAlone(context.WithoutCancel(ctx), pl, "")
		}
	}()
	win, err := b.window(ctx, pl, s.Config)
	if err != nil {
		return tmux.NewPane{}, err
	}
	plan, err := layout.Next(s.Layout, win)
	if err != nil {
		return tmux.NewPane{}, err
	}
	gate := tmux.NewGate()
	cmd, err := pl.srv.Gated(tmux.Command{Argv: s.Argv, Cwd: s.Member.Cwd, Env: s.Env}, gate)
	if err != nil {
		return tmux.NewPane{}, err
	}
	var pane tmux.NewPane
	switch {
	case plan.NewWindow:
		pane, err = pl.srv.NewSession(ctx, PrivateSession, cmd, privateWidth, privateHeight)
	case plan.OwnWindow:
		pane, err = pl.srv.NewWindow(ctx, plan.Split.Target, cmd)
	default:
		pane, err = pl.srv.SplitPane(ctx, plan.Split, cmd)
	}
	if err != nil {
		return tmux.NewPane{}, explain(pl, fmt.Errorf("make a pane for %s: %w", s.Member.Name, err))
	}
	look := tmux.Look{Agent: s.Member.AgentID, Title: s.Member.Name, Color: team.TmuxColor(s.Member.Color)}
	if err := pl.srv.Start(ctx, pane, look, gate, plan.Relayout); err != nil {
		// The command has not started (its gate is shut): nothing is lost.
		pl.srv.KillPane(context.WithoutCancel(ctx), pane.ID)
		return tmux.NewPane{}, explain(pl, err)
	}
	return pane, nil
}

// discardTimeout bounds the clean-up after a failed spawn, which runs even
// when the spawn's own context has ended (an interrupt).
const discardTimeout = 10 * time.Second

// discard takes back what a failed Spawn started: the pane it made for
// agent (unless keepDead: a dead pane kept to show why), then, on a
// private server, the server itself when nothing else is on it (no pane
// of anyone's but the hidden session's placeholder), with its socket and
// lock. So a spawn that fails leaves nothing running. It reports whether
// the server was stopped; failures to clean up are not the error the
// user needs to see, and are left for 'cleanup --orphans'.
func (b *Tmux) discard(ctx context.Context, pl placement, pane, agent string, keepDead bool) (stopped bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), discardTimeout)
	defer cancel()
	unlock, err := pl.srv.Lock(ctx)
	if err != nil {
		return false
	}
	defer func() {
		unlock()
		if stopped {
			pl.srv.RemoveLock() // only once released: RemoveLock takes it
		}
	}()
	if pane != "" && !keepDead {
		if _, err := pl.srv.OwnedPane(ctx, pane, agent); err == nil {
			pl.srv.KillPane(ctx, pane)
		}
	}
	return b.stopIfAlone(ctx, pl, pane)
}

// Discard kills the pane the last Spawn made for m, and stops its
// private server when nothing else is on it.
func (b *Tmux) Discard(ctx context.Context, p Pane, m team.Member) error {
	if b.last.socket == "" || p.ID == "" {
		return fmt.Errorf("discard %s: no pane of this spawn to take back", m.Name)
	}
	b.discard(ctx, b.last, p.ID, m.AgentID, false)
	if _, err := b.last.srv.OwnedPane(ctx, p.ID, m.AgentID); err == nil {
		return fmt.Errorf("discard %s: pane %s is still there", m.Name, p.ID)
	}
	return nil
}

// stopIfAlone stops a private server (with its socket; the caller holds
// its lock, and removes that once released) when no pane but pane and
// the hidden session's placeholder is on it, or it has already exited.
func (b *Tmux) stopIfAlone(ctx context.Context, pl placement, pane string) bool {
	if !pl.private {
		return false
	}
	panes, err := pl.srv.AllPanes(ctx)
	if err != nil && !errors.Is(err, tmux.ErrNoServer) && !errors.Is(err, tmux.ErrNoSession) {
		return false
	}
	for _, p := range panes {
		if p.ID != pane && !(p.Agent == "" && p.Session == tmux.HiddenSession) {
			return false // someone else's: the server stays
		}
	}
	return pl.srv.Stop(ctx) == nil
}

// window is the window the new pane joins, with each pane's role.
func (b *Tmux) window(ctx context.Context, pl placement, cfg *team.Config) (layout.Window, error) {
	target := pl.leader
	if pl.private {
		target = "=" + PrivateSession
	}
	panes, err := pl.srv.WindowPanes(ctx, target)
	switch {
	case pl.private && (errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrNoSession)):
		return layout.Window{}, nil // nothing yet: the first pane makes the session
	case err != nil:
		return layout.Window{}, explain(pl, err)
	}
	return roles(panes, pl.leader, teamName(cfg)), nil
}

// roles tells the team's panes from everything else in the window.
func roles(panes []tmux.Pane, leader, teamName string) layout.Window {
	var w layout.Window
	for _, p := range panes {
		lp := layout.Pane{ID: p.ID, Width: p.Width, Height: p.Height}
		switch {
		case p.ID == leader:
			lp.Role = layout.Lead
		case ofTeam(p.Agent, teamName):
			lp.Role = layout.Teammate
		}
		w.Panes = append(w.Panes, lp)
	}
	return w
}

func ofTeam(agentID, teamName string) bool {
	_, t, ok := strings.Cut(agentID, "@")
	return ok && teamName != "" && t == teamName
}

func teamName(cfg *team.Config) string {
	if cfg == nil {
		return ""
	}
	return cfg.Name
}

// explain turns tmux's terse failures into what the user can do.
func explain(pl placement, err error) error {
	switch {
	case errors.Is(err, tmux.ErrNoServer) && !pl.private:
		return fmt.Errorf("the tmux server in $TMUX (%s) is not running; start paneteam from a live tmux pane, or outside tmux for a private server: %w", pl.srv.Socket, err)
	case errors.Is(err, tmux.ErrPaneNotFound) && !pl.private:
		return fmt.Errorf("the lead's pane %s ($TMUX_PANE) no longer exists on %s: %w", pl.leader, pl.srv, err)
	case strings.Contains(err.Error(), "no space for new pane"), strings.Contains(err.Error(), "pane too small"):
		return fmt.Errorf("%w (the window is full: enlarge it, or hide teammates with 'paneteam hide')", err)
	}
	return err
}

// RecordTeam notes in the team's paneteam record where the last Spawn put
// its pane: the server (and whether paneteam owns it) and the lead's pane.
func (b *Tmux) RecordTeam(meta *team.TeamMeta) {
	if b.last.socket == "" {
		return
	}
	meta.Backend = team.BackendTmux
	meta.TmuxSocket = b.last.socket
	meta.TmuxPrivate = b.last.private
	if b.last.leader != "" {
		meta.LeaderPane = b.last.leader
	}
}

// ExitedError reports a command that ended as soon as it started; its pane
// stays on screen with the output.
type ExitedError struct {
	Socket string
	Pane   string
	Status int
	// StatusKnown is false when tmux had not learnt the status within
	// statusGrace of the pane dying.
	StatusKnown bool
	Output      string // the last lines the pane shows
	// Stopped: the pane was alone on a private server, which was stopped
	// rather than kept running to show it.
	Stopped bool
}

func (e *ExitedError) Error() string {
	msg := fmt.Sprintf("the command in pane %s exited at once with status %d", e.Pane, e.Status)
	if !e.StatusKnown {
		msg = fmt.Sprintf("the command in pane %s exited at once (tmux did not report its status)", e.Pane)
	}
	if e.Output != "" {
		msg += ":\n" + e.Output
	}
	if e.Stopped {
		return msg + "\n(its private tmux server was stopped: nothing is left running)"
	}
	return msg + "\n(the pane stays open to show this; close it with: tmux -S " + tmux.ShellQuote(e.Socket) + " kill-pane -t " + e.Pane + ")"
}

// watchEvery is how often watch looks at a pane whose command died until
// tmux knows its exit status, and the least time between two looks;
// watchLongest is the most; statusGrace bounds the wait, once the pane is
// dead, for tmux to reap the command and learn its exit status.
const (
	watchEvery   = 10 * time.Millisecond
	watchLongest = 250 * time.Millisecond
	statusGrace  = time.Second
)

// watch looks at a new pane when d has passed, and every watchLongest
// before that when d is longer: a pane whose command has died (kept by
// remain-on-exit failed) is an ExitedError; a pane that is gone ended with
// status 0 and is reported as it is. Each look is a tmux client, as much
// CPU as the rest of a spawn: a spawn's 50 ms check looked five times
// (every 10 ms), though a command alive at the end of it was alive all
// along and one that died stays dead; now it looks once (bench/RESULTS.md).
func watch(ctx context.Context, srv tmux.Server, pane string, d time.Duration) (tmux.Pane, error) {
	deadline := time.Now().Add(d)
	every := min(max(d, watchEvery), watchLongest)
	wait := min(every, d)
	var statusBy time.Time
	var last tmux.Pane
	for {
		if wait > 0 {
			if err := sleepCtx(ctx, wait); err != nil {
				return last, err
			}
		}
		p, err := srv.PaneByID(ctx, pane)
		if errors.Is(err, tmux.ErrPaneNotFound) {
			return tmux.Pane{}, nil
		}
		if err != nil {
			return tmux.Pane{}, err
		}
		last = p
		if p.Dead && !p.StatusReady {
			if statusBy.IsZero() {
				statusBy = time.Now().Add(statusGrace)
			}
			if time.Now().Before(statusBy) {
				wait = watchEvery
				continue
			}
		}
		if p.Dead {
			// The start of the output may already be in the history.
			out, _ := srv.Run(ctx, "capture-pane", "-p", "-S", "-", "-t", pane)
			sock, _ := srv.SocketPath()
			return p, &ExitedError{Socket: sock, Pane: pane, Status: p.DeadStatus, StatusKnown: p.StatusReady, Output: lastLines(out, 5)}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return p, nil
		}
		wait = min(every, left)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// lastLines is the end of what a dead pane shows: its last n non-empty
// lines, without the "Pane is dead" line tmux adds (remain-on-exit).
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " ")
		if l != "" && !strings.HasPrefix(l, "Pane is dead") {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
