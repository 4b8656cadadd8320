package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/panes/shim"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/tmux"
)

// reapClaudeLeadPanes closes the panes paneteam's tmux made for a Claude
// Code lead that is gone ('paneteam claude', then the lead was killed
// before it could close its teammates' panes). Such a pane carries
// tmux.ClaudeLeadOption, "<pid>:<start time>" of its lead: a lead whose
// pid is gone, a zombie, or now names a process started at another time,
// is provably gone. Its teammate would otherwise run on with no lead to
// answer to. The team and task folders are left to the Claude team rules
// (reapClaudeTeam: 'claude --resume' may still want them).
//
// It looks on the servers paneteam has made panes on (a pane lock beside
// the socket) and on the caller's $TMUX.
func (o Options) reapClaudeLeadPanes(ctx context.Context, ro ReapOptions, res *ReapResult) error {
	var errs []error
	for _, sock := range paneteamServers(ro.SocketDir, o.getenv("TMUX")) {
		srv := tmux.Server{Socket: sock}
		out, err := srv.Run(ctx, "list-panes", "-a", "-F", "#{pane_id}|#{"+tmux.ClaudeLeadOption+"}|#{"+tmux.AgentOption+"}")
		if errors.Is(err, tmux.ErrNoServer) || errors.Is(err, tmux.ErrNoSession) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("list panes of %s: %w", srv, err))
			continue
		}
		for _, line := range strings.Split(out, "\n") {
			f := strings.SplitN(line, "|", 3)
			if len(f) != 3 || f[1] == "" {
				continue
			}
			pid, start, gone := claudeLeadGone(f[1])
			if !gone {
				continue
			}
			lp := &LeftPane{Socket: sock, Pane: f[0], Agent: f[2], Closed: true,
				Why: fmt.Sprintf("its Claude Code lead (pid %d) is gone", pid)}
			if !ro.DryRun {
				lp.Closed, lp.Why = closeClaudeLeadPane(ctx, srv, f[0], f[1], pid, start)
			}
			res.Panes = append(res.Panes, lp)
		}
	}
	return errors.Join(errs...)
}

// claudeLeadGone reads a ClaudeLeadOption value and says whether that
// lead process is gone. A value it cannot read is never judged gone.
func claudeLeadGone(tag string) (int, string, bool) {
	p, start, _ := strings.Cut(tag, ":")
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 1 {
		return 0, "", false
	}
	return pid, start, !proc.Alive(pid, start)
}

// closeClaudeLeadPane closes a pane after checking, once more, that it
// carries the same lead mark and that lead is still gone.
func closeClaudeLeadPane(ctx context.Context, srv tmux.Server, pane, tag string, pid int, start string) (bool, string) {
	now, err := srv.Run(ctx, "display-message", "-p", "-t", pane, "#{"+tmux.ClaudeLeadOption+"}")
	if err != nil || now != tag {
		return false, "left alone: it changed while cleanup looked"
	}
	if proc.Alive(pid, start) {
		return false, "left alone: its Claude Code lead is back"
	}
	if err := srv.KillPane(ctx, pane); err != nil {
		return false, fmt.Sprintf("could not close pane %s on %s: %v", pane, srv, err)
	}
	return true, fmt.Sprintf("its Claude Code lead (pid %d) is gone", pid)
}

// reapVirtualLeadPanes closes the panes paneteam opened in kitty, WezTerm,
// Zellij or iTerm2 for a Claude Code lead that is gone: each such lead
// had a tmux server of paneteam's own (a folder under ro.VirtualDir)
// recording its lead's "<pid>:<start time>" and every pane it opened.
func (o Options) reapVirtualLeadPanes(ctx context.Context, ro ReapOptions, res *ReapResult) error {
	if ro.VirtualDir == "" {
		return nil
	}
	entries, err := os.ReadDir(ro.VirtualDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list paneteam's tmux servers for Claude Code leads: %w", err)
	}
	var errs []error
	for _, e := range entries {
		dir := filepath.Join(ro.VirtualDir, e.Name())
		st, err := virtualtmux.Read(dir)
		if err != nil {
			continue // being made, or not one of ours
		}
		pid, _, gone := claudeLeadGone(st.Lead)
		if !gone {
			continue
		}
		why := fmt.Sprintf("its Claude Code lead (pid %d) is gone", pid)
		if ro.DryRun {
			for _, p := range st.Panes {
				res.Panes = append(res.Panes, &LeftPane{Socket: dir, Terminal: st.Terminal, Pane: p.ID, Agent: p.Agent, Closed: true, Why: why})
			}
			continue
		}
		closed, err := shim.CloseAll(ctx, dir, o.getenv)
		for _, p := range st.Panes {
			lp := &LeftPane{Socket: dir, Terminal: st.Terminal, Pane: p.ID, Agent: p.Agent, Closed: slices.Contains(closed, p.ID), Why: why}
			if !lp.Closed {
				lp.Why = fmt.Sprintf("could not close it in %s: %v", st.Terminal, err)
			}
			res.Panes = append(res.Panes, lp)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
