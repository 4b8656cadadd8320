package teamfind

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// Pane liveness, as status reports it.
const (
	PaneAlive   = "alive"
	PaneDead    = "dead"
	PaneUnknown = "unknown"
)

// candidate is a tmux server a Claude Code pane teammate may live on;
// sure says the server is known to be the lead's (its own $TMUX, or its
// private claude-swarm-<pid> server), so a pane missing there is gone.
type candidate struct {
	srv  tmux.Server
	sure bool
	// virtual is the folder of paneteam's own tmux for a lead in
	// kitty, WezTerm, Zellij or iTerm2 (srv is then unused).
	virtual string
}

// ClaudeServers lists the tmux servers where Claude Code's lead (pid) puts
// its pane teammates (docs/PROTOCOL.md §13: "-S <$TMUX>" inside tmux,
// else "-L claude-swarm-<pid>"): the lead's own $TMUX when its environment
// is readable, its private server if there is one, then the caller's
// $TMUX.
func claudeServers(pid int64, start string, getenv func(string) string) []candidate {
	var out []candidate
	if pid > 1 {
		if dir, ok := leadVirtual(pid, start, getenv); ok {
			return append(out, candidate{sure: true, virtual: dir})
		}
		env, err := proc.Environ(int(pid))
		if dir := env[virtualtmux.EnvState]; err == nil && dir != "" && env[virtualtmux.EnvTerminal] != "" {
			// 'paneteam claude' in a native terminal: the panes are
			// that terminal's, recorded by paneteam's tmux.
			return append(out, candidate{sure: true, virtual: dir})
		}
		if err == nil && env["TMUX"] != "" {
			if srv, err := tmux.FromTMUX(env["TMUX"]); err == nil {
				out = append(out, candidate{srv: srv, sure: true})
			}
		}
		swarm := filepath.Join(swarmDir(getenv), "claude-swarm-"+strconv.FormatInt(pid, 10))
		if fi, err := os.Lstat(swarm); err == nil && fi.Mode()&os.ModeSocket != 0 {
			out = append(out, candidate{srv: tmux.Server{Socket: swarm}, sure: true})
		}
	}
	if v := getenv("TMUX"); v != "" {
		if srv, err := tmux.FromTMUX(v); err == nil {
			out = append(out, candidate{srv: srv})
		}
	}
	return out
}

// leadVirtual finds the folder of paneteam's tmux for a lead started by
// 'paneteam claude' in a native terminal, by its pid, in paneteam's state
// folder: the lead's environment is not readable on macOS, nor once the
// lead is gone. The folder counts only if the lead it records is this
// one: the same pid, and the same start time when the team's
// leadProcess has one (pids are reused).
func leadVirtual(pid int64, start string, getenv func(string) string) (string, bool) {
	state, err := provenance.StateDir(getenv)
	if err != nil {
		return "", false
	}
	dir := filepath.Join(virtualtmux.Dir(state), strconv.FormatInt(pid, 10))
	st, err := virtualtmux.Read(dir)
	if err != nil {
		return "", false
	}
	p, s, _ := strings.Cut(st.Lead, ":")
	if p != strconv.FormatInt(pid, 10) || (start != "" && s != start) {
		return "", false
	}
	return dir, true
}

func swarmDir(getenv func(string) string) string {
	base := getenv("TMUX_TMPDIR")
	if base == "" {
		base = "/tmp"
	}
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	return filepath.Join(base, "tmux-"+strconv.Itoa(os.Getuid()))
}

// ClaudePaneState says whether the pane of a teammate Claude Code started
// in a pane of its own (m.TmuxPaneID, %N) is alive, and if that cannot be
// told, why. lead is the team's lead as team.LeadOf judged it.
func ClaudePaneState(ctx context.Context, lead team.Lead, m *team.Member, getenv func(string) string) (string, string) {
	return ClaudePaneStateFrom(ctx, lead, m, getenv, func(ctx context.Context, srv tmux.Server) (map[string]tmux.Pane, error) {
		all, err := srv.AllPanes(ctx)
		byID := make(map[string]tmux.Pane, len(all))
		for _, p := range all {
			byID[p.ID] = p
		}
		return byID, err
	})
}

// ClaudePaneStateFrom is ClaudePaneState judged from panes, which lists a
// server's panes by id: a caller asking about many members lists each
// server once (backend.Census.Panes).
func ClaudePaneStateFrom(ctx context.Context, lead team.Lead, m *team.Member, getenv func(string) string,
	panes func(context.Context, tmux.Server) (map[string]tmux.Pane, error)) (string, string) {
	start := ""
	if lead.Process != nil && lead.Process.HasProcStart {
		start = lead.Process.ProcStart
	}
	cands := claudeServers(lead.PID, start, getenv)
	if len(cands) == 0 {
		return PaneUnknown, "where Claude Code keeps its panes is not known: run this inside Claude Code's tmux, " +
			"or, for a lead started with 'paneteam claude' in kitty, WezTerm, Zellij or iTerm2, with the PANETEAM_STATE_DIR (or HOME) it had"
	}
	sureGone := false
	for _, c := range cands {
		if c.virtual != "" {
			switch found, alive := virtualtmux.PaneAlive(c.virtual, m.TmuxPaneID); {
			case found && alive:
				return PaneAlive, ""
			default:
				return PaneDead, ""
			}
		}
		byID, err := panes(ctx, c.srv)
		p, found := byID[m.TmuxPaneID]
		switch {
		case err == nil && found && p.Dead:
			return PaneDead, ""
		case err == nil && found:
			return PaneAlive, ""
		case c.sure && (err == nil || errors.Is(err, tmux.ErrNoServer)):
			sureGone = true
		}
	}
	if sureGone {
		return PaneDead, ""
	}
	return PaneUnknown, "pane " + m.TmuxPaneID + " is not on the tmux server in $TMUX; Claude Code's may be another"
}

// ClaudeServer is the tmux server a live Claude Code lead (pid) puts its
// pane teammates on, when it can be told: its private claude-swarm-<pid>
// server (outside tmux; private is true), else the server of its own
// $TMUX. ok is false when neither is known.
func ClaudeServer(pid int64, getenv func(string) string) (srv tmux.Server, private, ok bool) {
	for _, c := range claudeServers(pid, "", getenv) {
		if !c.sure || c.virtual != "" {
			continue
		}
		if strings.HasPrefix(filepath.Base(c.srv.Socket), "claude-swarm-") {
			return c.srv, true, true
		}
		srv, ok = c.srv, true
	}
	return srv, false, ok
}
