package backend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/panes/ptyhost"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/team"
)

func init() {
	registry[team.BackendInProcess] = func(env Env, _ *team.Config) (Backend, error) {
		return InProcess{Exe: env.Exe}, nil
	}
}

// InProcess runs each teammate under a pseudo-terminal owned by a small
// detached paneteam host process (package ptyhost): it works with no
// terminal multiplexer at all (ssh, CI, cron, an editor's terminal).
type InProcess struct {
	Exe string // the paneteam binary, which runs the host
}

func (InProcess) Name() string { return team.BackendInProcess }

// Spawn starts the host and returns once the teammate's command runs.
func (b InProcess) Spawn(ctx context.Context, s Spec) (Pane, error) {
	if len(s.Argv) == 0 {
		return Pane{}, fmt.Errorf("spawn %s: no command to run", s.Member.Name)
	}
	if b.Exe == "" {
		return Pane{}, fmt.Errorf("spawn %s: the paneteam binary is unknown, so no host can be started", s.Member.Name)
	}
	o := ptyhost.Options{
		Paths: ptyhost.PathsFor(s.Team.Dir(), s.Member.Name),
		Argv:  s.Argv,
		Cwd:   s.Member.Cwd,
		Rows:  ptyhost.DefaultRows,
		Cols:  ptyhost.DefaultCols,
	}
	st, err := ptyhost.Start(ctx, b.Exe, childEnv(os.Environ(), s.Env), o)
	if err != nil {
		return Pane{}, fmt.Errorf("spawn %s in-process: %w", s.Member.Name, err)
	}
	if err := startupCheck(ctx, o.Paths, s.StartupCheck); err != nil {
		return Pane{}, fmt.Errorf("spawn %s in-process: %w", s.Member.Name, err)
	}
	return Pane{
		ID:      team.InProcessPaneID,
		Backend: team.BackendInProcess,
		Meta:    &team.MemberMeta{PID: st.HostPID, PIDStart: st.HostStart, HostState: o.Paths.State},
	}, nil
}

// Kill ends the teammate and its host; one already gone is success.
func (InProcess) Kill(ctx context.Context, cfg *team.Config, m *team.Member) error {
	pid, start := hostOf(m)
	if pid == 0 {
		return fmt.Errorf("member %s has no recorded host process: paneteam cannot prove which process is its own", m.Name)
	}
	var state string
	if m.Paneteam != nil {
		state = m.Paneteam.HostState
	}
	if err := ownHost(cfg, m, state, pid, start); err != nil {
		return err
	}
	if err := ptyhost.Kill(ctx, state, pid, start); err != nil {
		return fmt.Errorf("kill %s: %w", m.Name, err)
	}
	return nil
}

// Alive reports whether the member's host still runs (the host ends when
// the teammate's command does).
func (InProcess) Alive(_ context.Context, _ *team.Config, m *team.Member) (bool, error) {
	pid, start := hostOf(m)
	if pid == 0 {
		return false, fmt.Errorf("member %s has no recorded host process", m.Name)
	}
	return ptyhost.Alive(pid, start), nil
}

// ownHost proves that the host process config.json names for m is the
// one paneteam started: config.json can be rewritten by a teammate (one
// on another host too), so its pid and state file are believed only when
// the state file is where paneteam keeps m's (ptyhost.PathsFor: the
// team's panes folder, which a host's mount does not show) and records
// that very process.
func ownHost(cfg *team.Config, m *team.Member, state string, pid int, start string) error {
	dir := filepath.Dir(state)
	teamDir := filepath.Dir(dir)
	if state == "" || !filepath.IsAbs(state) || state != ptyhost.PathsFor(teamDir, m.Name).State ||
		filepath.Base(filepath.Dir(teamDir)) != "teams" || (cfg != nil && filepath.Base(teamDir) != team.SanitizeTeam(cfg.Name)) {
		return fmt.Errorf("member %s's hostState %q in config.json is not where paneteam keeps its record (config.json was changed by something else): leaving process %d alone", m.Name, state, pid)
	}
	st, err := ptyhost.ReadState(state)
	if err != nil {
		return fmt.Errorf("member %s's host record %s: %w: paneteam cannot prove process %d is its own; leaving it alone", m.Name, state, err, pid)
	}
	if st.HostPID != pid || (start != "" && st.HostStart != start) {
		return fmt.Errorf("member %s's host pid %d in config.json is not the one paneteam recorded (%d; config.json was changed by something else): leaving it alone", m.Name, pid, st.HostPID)
	}
	return nil
}

func hostOf(m *team.Member) (int, string) {
	if m.Paneteam == nil {
		return 0, ""
	}
	return m.Paneteam.PID, m.Paneteam.PIDStart
}

// childEnv is the teammate's environment: this process's, without the
// variables that would make it believe it runs inside tmux or iTerm2 (it
// does not: it has its own terminal), plus the spec's.
func childEnv(base, extra []string) []string {
	out := envlist.Default(envlist.Without(base, "TMUX", "TMUX_PANE", "ITERM_SESSION_ID", "TERM_PROGRAM"), "TERM", "xterm-256color")
	return append(out, extra...)
}

// startupCheck watches the command for d and reports it when it failed at
// once (bad flag, missing file), with the end of its output; the log stays
// for 'paneteam logs'.
func startupCheck(ctx context.Context, p ptyhost.Paths, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		st, err := ptyhost.ReadState(p.State)
		if err == nil && st.Exited && st.ExitCode != 0 {
			return fmt.Errorf("%s exited at once with status %d: %s", st.Argv[0], st.ExitCode, logTail(p.Log))
		}
		if time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func logTail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(b), "\r", "")), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}
