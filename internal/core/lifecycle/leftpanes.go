package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// LeftPane is a pane paneteam made for a team whose folder is gone.
type LeftPane struct {
	Socket string `json:"socket"`
	// Terminal is the terminal the pane is in when it is not tmux's
	// (kitty, wezterm, zellij, iterm2); Socket is then the folder of
	// paneteam's tmux for that lead.
	Terminal string `json:"terminal,omitempty"`
	Pane     string `json:"pane"`
	Agent    string `json:"agent"`
	Closed   bool   `json:"closed"`
	Why      string `json:"why"`
}

// reapLeftPanes closes the panes paneteam made (they carry
// @paneteam-agent = name@team) for a team whose folder no longer exists
// under root: Claude Code deletes its session team when it exits
// (docs/PROTOCOL.md §3), leaving the panes paneteam started for it.
//
// It looks on every server paneteam has made panes on (a pane lock beside
// the socket in the socket folder) and on the caller's $TMUX. A pane is
// closed only if its process's environment proves it was started for
// this root (PANETEAM_ROOT) and this agent (PANETEAM_TEAM,
// PANETEAM_AGENT): a pane of a team under another root, or whose process
// has ended, is left alone.
func (o Options) reapLeftPanes(ctx context.Context, root string, ro ReapOptions, res *ReapResult) error {
	var errs []error
	for _, sock := range paneteamServers(ro.SocketDir, o.getenv("TMUX")) {
		srv := tmux.Server{Socket: sock}
		panes, err := srv.AllPanes(ctx)
		if errors.Is(err, tmux.ErrNoServer) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("list panes of %s: %w", srv, err))
			continue
		}
		for _, p := range panes {
			lp := leftPane(root, sock, p)
			if lp == nil {
				continue
			}
			if lp.Why == "" && !ro.DryRun {
				lp.Closed, lp.Why = closeLeftPane(ctx, srv, root, p)
			} else if lp.Why == "" {
				lp.Closed = true
			}
			if lp.Closed {
				lp.Why = "its team folder is gone (the team ended)"
			}
			res.Panes = append(res.Panes, lp)
		}
	}
	return errors.Join(errs...)
}

// leftPane says what to do with p: nil when it is not paneteam's or its
// team still exists; Why empty when it is to be closed, else why it is
// left alone.
func leftPane(root, sock string, p tmux.Pane) *LeftPane {
	name, teamName, ok := strings.Cut(p.Agent, "@")
	if !ok || name == "" || teamName == "" || teamExists(root, teamName) {
		return nil
	}
	lp := &LeftPane{Socket: sock, Pane: p.ID, Agent: p.Agent}
	if p.Dead || p.PID <= 0 {
		lp.Why = "its team folder is gone, but its command has ended and its root cannot be told: left alone"
		return lp
	}
	env, err := proc.Environ(p.PID)
	switch {
	case err != nil:
		lp.Why = fmt.Sprintf("its team folder is gone, but its process's environment is unreadable (%v): left alone", err)
	case !sameDir(env["PANETEAM_ROOT"], root):
		// A team under another root (or a pane from before panes carried
		// their root): not this cleanup's to judge.
		return nil
	case env["PANETEAM_TEAM"] != teamName || env["PANETEAM_AGENT"] != name:
		lp.Why = "its process was not started for " + p.Agent + ": left alone"
	}
	return lp
}

// closeLeftPane closes p after checking, once more, that it still
// carries the same agent and its team has not come back.
func closeLeftPane(ctx context.Context, srv tmux.Server, root string, p tmux.Pane) (bool, string) {
	_, teamName, _ := strings.Cut(p.Agent, "@")
	if _, err := srv.OwnedPane(ctx, p.ID, p.Agent); err != nil {
		return false, fmt.Sprintf("left alone: %v", err)
	}
	if teamExists(root, teamName) {
		return false, "its team is back: left alone"
	}
	if err := srv.KillPane(ctx, p.ID); err != nil {
		return false, fmt.Sprintf("could not close pane %s on %s: %v", p.ID, srv, err)
	}
	return true, ""
}

func teamExists(root, name string) bool {
	_, err := os.Stat(filepath.Join(root, "teams", team.SanitizeTeam(name)))
	return !errors.Is(err, fs.ErrNotExist)
}

func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	clean := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	return clean(a) == clean(b)
}

// paneteamServers lists the sockets of the tmux servers paneteam has made
// panes on: those in dir with paneteam's pane lock beside them
// (tmux.Server.Lock), and the caller's own server ($TMUX).
func paneteamServers(dir, tmuxVar string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if srv, err := tmux.FromTMUX(tmuxVar); err == nil && tmuxVar != "" {
		add(srv.Socket)
	}
	var entries []os.DirEntry
	if dir != "" { // "": refused by checkSocketDir
		entries, _ = os.ReadDir(dir)
	}
	for _, e := range entries {
		sock, ok := strings.CutSuffix(e.Name(), ".paneteam-lock")
		if !ok {
			continue
		}
		path := filepath.Join(dir, sock)
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSocket != 0 && ownedByMe(fi) {
			add(path)
		}
	}
	return out
}
