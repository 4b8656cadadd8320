// Package teamfind decides which team a command means when it was not
// told: the team of the Claude Code session it runs under (in that
// session's process tree, or in its tmux pane, as a keybinding pressed in
// Claude's pane is). It also finds Claude Code's panes.
package teamfind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// AmbiguousError says no single team could be chosen; Teams lists them.
type AmbiguousError struct {
	Root  string
	Teams []string
}

func (e *AmbiguousError) Error() string {
	if len(e.Teams) == 0 {
		return "no team given, and no team under " + e.Root + ": name one, or create one"
	}
	return fmt.Sprintf("no team given, and this is not inside a Claude Code session: name one (teams under %s: %s)",
		e.Root, strings.Join(e.Teams, ", "))
}

// Caller is where the command runs.
type Caller struct {
	// PID is the caller's own process (os.Getpid() in production).
	PID int
	// Getenv reads the environment captured at start ($TMUX, $TMUX_PANE).
	Getenv func(string) string
}

// claudeTeam is one team whose leadProcess names a process here.
type claudeTeam struct {
	name string
	pid  int
}

// Infer names the team a command run by c means under root:
//  1. the Claude Code session whose lead process (leadProcess.pid, in our
//     pid namespace) is the caller or one of its ancestors;
//  2. inside tmux, the Claude Code session whose lead runs in the
//     caller's pane ($TMUX_PANE): the pane's process is the lead or one
//     of its ancestors.
//
// Otherwise an *AmbiguousError lists the teams. Even a lone team is not
// guessed: a message or a shutdown sent to a team the user did not mean
// is worse than a question.
func Infer(ctx context.Context, root string, c Caller) (string, error) {
	names, err := team.List(root)
	if err != nil {
		return "", err
	}
	leads := claudeTeams(root, names)
	if t := byAncestry(leads, proc.Ancestors(c.PID)); t != "" {
		return t, nil
	}
	if t := byPane(ctx, leads, c.Getenv); t != "" {
		return t, nil
	}
	return "", &AmbiguousError{Root: root, Teams: names}
}

// claudeTeams lists the teams led by a Claude Code process that may be
// alive in our pid namespace (a dead lead's pid may name anything now).
func claudeTeams(root string, names []string) []claudeTeam {
	here := proc.PIDSpace()
	var out []claudeTeam
	for _, n := range names {
		t, cfg, err := team.Open(root, n)
		if err != nil {
			continue
		}
		lp, ok := cfg.LeadProcess()
		if !ok || lp.PIDSpace != here || lp.PID <= 1 || lp.PID > 1<<31-1 {
			continue
		}
		if lp.Judge().State != team.LeadAlive {
			continue
		}
		out = append(out, claudeTeam{name: t.Name, pid: int(lp.PID)})
	}
	return out
}

// byAncestry returns the one team whose lead is among pids ("" when none
// or several: a pid two live teams claim is no answer).
func byAncestry(leads []claudeTeam, pids []int) string {
	for _, pid := range pids {
		var found []string
		for _, l := range leads {
			if l.pid == pid {
				found = append(found, l.name)
			}
		}
		if len(found) == 1 {
			return found[0]
		}
		if len(found) > 1 {
			return ""
		}
	}
	return ""
}

// byPane finds the team whose lead runs in the caller's tmux pane.
func byPane(ctx context.Context, leads []claudeTeam, getenv func(string) string) string {
	tv, pane := getenv("TMUX"), getenv("TMUX_PANE")
	if tv == "" || pane == "" || len(leads) == 0 {
		return ""
	}
	srv, err := tmux.FromTMUX(tv)
	if err != nil {
		return ""
	}
	out, err := srv.PanePID(ctx, pane)
	if err != nil {
		return ""
	}
	panePID, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || panePID <= 0 {
		return ""
	}
	var found []string
	for _, l := range leads {
		if slices.Contains(proc.Ancestors(l.pid), panePID) {
			found = append(found, l.name)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return ""
}

// LeadPane finds the tmux pane on srv whose process tree holds pid (a
// Claude Code lead's pane, which Claude never writes to config.json:
// docs/PROTOCOL.md §3). It returns "" when no pane does.
func LeadPane(ctx context.Context, srv tmux.Server, pid int) (string, error) {
	panes, err := srv.AllPanes(ctx)
	if err != nil {
		return "", err
	}
	anc := proc.Ancestors(pid)
	for _, p := range panes {
		if p.PID > 0 && slices.Contains(anc, p.PID) {
			return p.ID, nil
		}
	}
	return "", nil
}

// IsAmbiguous reports whether err is Infer's "no single team".
func IsAmbiguous(err error) bool {
	var a *AmbiguousError
	return errors.As(err, &a)
}

// Self is the running process as a Caller.
func Self(getenv func(string) string) Caller { return Caller{PID: os.Getpid(), Getenv: getenv} }
