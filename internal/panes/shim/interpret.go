package shim

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/tmux"
)

// knownCall is what Claude Code's lead is known to give one command.
type knownCall struct {
	flags      string
	minA, maxA int
	args       []string // when set, the exact arguments
}

// known gives, for each command Claude Code's lead sends to its server,
// the flags it uses (docs/CLAUDE-TMUX.md) and how many arguments follow
// them. A call with another command, another flag or another count is
// unknown: the contract changed, and the shim says so rather than guess.
// It is a switch, not a map, so that no paneteam start builds it.
func known(cmd string) (knownCall, bool) {
	switch cmd {
	case "has-session":
		return knownCall{flags: "t"}, true
	case "list-windows":
		return knownCall{flags: "tF"}, true
	case "list-panes":
		return knownCall{flags: "tF"}, true
	case "display-message":
		return knownCall{flags: "ptF", maxA: 1}, true
	case "set-option":
		return knownCall{flags: "pwt", minA: 2, maxA: 2}, true
	case "select-pane":
		return knownCall{flags: "tT"}, true
	case "select-layout":
		return knownCall{flags: "t", minA: 1, maxA: 1}, true
	case "resize-pane":
		return knownCall{flags: "tx"}, true
	case "split-window":
		return knownCall{flags: "dthvlPF", args: []string{"cat"}}, true
	case "new-session":
		return knownCall{flags: "dsnPFxy", args: []string{"cat"}}, true
	case "respawn-pane":
		return knownCall{flags: "kt", minA: 1, maxA: 3}, true
	case "kill-pane":
		return knownCall{flags: "t"}, true
	}
	return knownCall{}, false
}

// check says why c is not a call the shim knows ("" when it is).
func check(c Call) string {
	if c.Version || c.Cmd == "" {
		return ""
	}
	k, ok := known(c.Cmd)
	if !ok {
		return fmt.Sprintf("Claude Code's lead is not known to send %s", c.Cmd)
	}
	for _, f := range c.Order {
		if strings.IndexByte(k.flags, f) < 0 {
			return fmt.Sprintf("%s -%c is not a flag Claude Code's lead is known to use", c.Cmd, f)
		}
	}
	if k.args != nil {
		if strings.Join(c.Args, "\x00") != strings.Join(k.args, "\x00") {
			return fmt.Sprintf("%s runs %q, where Claude Code's lead is known to run %q", c.Cmd, c.Args, k.args)
		}
		return ""
	}
	if len(c.Args) < k.minA || len(c.Args) > k.maxA {
		return fmt.Sprintf("%s has %d arguments, where Claude Code's lead is known to give %d to %d", c.Cmd, len(c.Args), k.minA, k.maxA)
	}
	if c.Cmd == "respawn-pane" && len(c.Args) == 2 {
		return "respawn-pane with two command words, where Claude Code's lead gives one, or a shell, -c and one"
	}
	return ""
}

// interpret carries out a call addressed to the shim.
func (s *Shim) interpret(ctx context.Context, c Call) int {
	if why := check(c); why != "" {
		return s.unknown(why)
	}
	switch c.Cmd {
	case "split-window":
		return s.split(ctx, c)
	case "new-session":
		return s.newSession(ctx, c)
	case "respawn-pane":
		return s.respawn(ctx, c)
	case "kill-pane":
		return s.kill(ctx, c)
	case "select-layout":
		// paneteam's layout arranged the window when the pane was made
		// (and arranges it again when one is killed); Claude's own
		// layout, asked right after the split, would change nothing of
		// it, and answering it costs a spawn a pane lock and a window
		// listing (bench/RESULTS.md).
		return s.finish("", "", 0)
	case "resize-pane":
		// The lead's width is part of paneteam's layout, set at the split.
		return s.finish("", "", 0)
	case "set-option":
		if s.policy.Kind == layout.Windows && c.Has('w') {
			// The lead's window is left as it is; the teammates' own
			// windows get their titles shown when they are made.
			return s.finish("", "", 0)
		}
	case "select-pane":
		if s.policy.Kind == layout.Windows && c.Has('T') {
			// A teammate's window is named after it, as its pane is.
			t := c.Flag('t')
			return s.finish(s.seq(ctx, []string{"select-pane", "-t", t, "-T", c.Flag('T')},
				[]string{"rename-window", "-t", t, c.Flag('T')}))
		}
	}
	return s.pass(c.Argv)
}

// paneFormat lists a window's panes with what the layout needs.
const paneFormat = "#{pane_id}|#{window_id}|#{pane_width}|#{pane_height}|#{" + LeadOption + "}|#{" + tmux.AgentOption + "}"

// window is the window holding target, each pane given its role for the
// layout: the lead's own pane (inside tmux, $TMUX_PANE), the panes the
// shim made for this lead (or paneteam made for its team), and others.
func (s *Shim) window(ctx context.Context, target string) (layout.Window, string, string, int) {
	out, errOut, rc := s.tmux(ctx, "list-panes", "-t", target, "-F", paneFormat)
	if rc != 0 {
		return layout.Window{}, "", errOut, rc
	}
	winID := ""
	lead := ""
	if s.call.Socket != "" {
		lead = s.Getenv("TMUX_PANE")
	}
	tag := s.leadTag()
	type row struct {
		id, w, h, tag, agent string
	}
	var rows []row
	teams := map[string]bool{}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		f := strings.SplitN(line, "|", 6)
		if len(f) != 6 {
			continue
		}
		winID = f[1]
		r := row{f[0], f[2], f[3], f[4], f[5]}
		rows = append(rows, r)
		if r.tag == tag {
			if _, t, ok := strings.Cut(r.agent, "@"); ok {
				teams[t] = true
			}
		}
	}
	var w layout.Window
	for _, r := range rows {
		p := layout.Pane{ID: r.id}
		p.Width, _ = strconv.Atoi(r.w)
		p.Height, _ = strconv.Atoi(r.h)
		_, t, _ := strings.Cut(r.agent, "@")
		switch {
		case r.id == lead:
			p.Role = layout.Lead
		case r.tag == tag, t != "" && teams[t]:
			p.Role = layout.Teammate
		}
		w.Panes = append(w.Panes, p)
	}
	return w, winID, "", 0
}

// split makes a teammate's pane where paneteam's layout says (rather than
// where Claude asked), marks it as paneteam's for this lead, re-lays out
// the window, and prints what tmux would (-P, -F).
func (s *Shim) split(ctx context.Context, c Call) int {
	unlock, err := s.server().Lock(ctx)
	if err != nil {
		return s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	defer unlock()
	win, winID, errOut, rc := s.window(ctx, c.Flag('t'))
	if rc != 0 {
		return s.finish("", errOut, rc)
	}
	plan, err := layout.Next(s.policy, win)
	if err != nil {
		// Nothing of the team to split beside: as Claude asked.
		plan = layout.Plan{Split: layout.Split{Target: c.Flag('t'), Horizontal: c.Has('h')}}
	}
	var args []string
	switch {
	case plan.OwnWindow:
		args = []string{"new-window", "-a", "-d", "-t", winID}
	default:
		dir := "-v"
		if plan.Split.Horizontal {
			dir = "-h"
		}
		args = []string{"split-window", "-d", "-t", plan.Split.Target, dir}
		if plan.Split.Percent != 0 {
			args = append(args, "-l", strconv.Itoa(plan.Split.Percent)+"%")
		}
	}
	args = append(append(args, "-P", "-F", "#{pane_id}", "--"), placeholder...)
	out, errOut, rc := s.tmux(ctx, args...)
	if rc != 0 {
		return s.finish(out, errOut, rc)
	}
	pane := strings.TrimSpace(out)
	cmds := [][]string{{"set-option", "-p", "-t", pane, LeadOption, s.leadTag()}}
	if plan.OwnWindow {
		cmds = append(cmds, []string{"set-option", "-w", "-t", pane, "pane-border-status", "top"})
	}
	cmds = append(cmds, relayout(pane, plan.Relayout)...)
	if _, errOut, rc := s.seq(ctx, cmds...); rc != 0 {
		return s.finish("", errOut, rc)
	}
	return s.finish(s.printPane(ctx, c, pane), "", 0)
}

// newSession starts the private server's session (outside tmux) as
// Claude asked, sized for a layout of several panes until someone
// attaches, and marks its pane.
func (s *Shim) newSession(ctx context.Context, c Call) int {
	unlock, err := s.server().Lock(ctx)
	if err != nil {
		return s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	defer unlock()
	args := []string{"new-session", "-d"}
	for _, f := range []byte{'s', 'n', 'x', 'y'} {
		if c.Has(f) {
			args = append(args, "-"+string(f), c.Flag(f))
		}
	}
	if !c.Has('x') && !c.Has('y') {
		args = append(args, "-x", "200", "-y", "50")
	}
	args = append(append(args, "-P", "-F", "#{pane_id}", "--"), placeholder...)
	out, errOut, rc := s.tmux(ctx, args...)
	if rc != 0 {
		return s.finish(out, errOut, rc)
	}
	pane := strings.TrimSpace(out)
	if _, errOut, rc := s.tmux(ctx, "set-option", "-p", "-t", pane, LeadOption, s.leadTag()); rc != 0 {
		return s.finish("", errOut, rc)
	}
	return s.finish(s.printPane(ctx, c, pane), "", 0)
}

// placeholder is what a new pane runs until Claude respawns it with the
// teammate's command: Claude's own "cat", given as two words so that tmux
// execs it rather than starting the person's default shell to run it.
var placeholder = []string{"cat", "-"}

// printPane is what tmux prints for a new pane: nothing without -P, else
// -F's format (by default session:window.pane).
func (s *Shim) printPane(ctx context.Context, c Call, pane string) string {
	if !c.Has('P') {
		return ""
	}
	f := "#{session_name}:#{window_index}.#{pane_index}"
	if c.Has('F') {
		f = c.Flag('F')
	}
	if f == "#{pane_id}" {
		return pane + "\n"
	}
	out, _, _ := s.tmux(ctx, "display-message", "-p", "-t", pane, f)
	return out
}

// respawn starts the teammate's command in its pane as tmux runs a
// one-word command, with a shell's -c, but always /bin/sh's (never the
// person's login shell and its start-up files), and marks the pane with
// the teammate's agent id. A command Claude already gives as a shell, -c
// and a line runs as given.
func (s *Shim) respawn(ctx context.Context, c Call) int {
	pane := c.Flag('t')
	argv, agent := teammateCommand(c.Args)
	var cmds [][]string
	if agent != "" {
		cmds = append(cmds, []string{"set-option", "-p", "-t", pane, tmux.AgentOption, agent})
	}
	respawn := []string{"respawn-pane"}
	if c.Has('k') {
		respawn = append(respawn, "-k")
	}
	respawn = append(append(respawn, "-t", pane, "--"), argv...)
	return s.finish(s.seq(ctx, append(cmds, respawn)...))
}

// kill closes a pane as Claude asked, then re-lays out the window it
// leaves; on a private server whose last pane it was, paneteam's pane
// lock beside the socket goes too.
func (s *Shim) kill(ctx context.Context, c Call) int {
	srv := s.server()
	unlock, err := srv.Lock(ctx)
	if err != nil {
		return s.finish("", fmt.Sprintf("paneteam (run as tmux): %v\n", err), 1)
	}
	target := c.Flag('t')
	winOut, _, _ := s.tmux(ctx, "display-message", "-p", "-t", target, "#{window_id}")
	// The server ends with its last pane, a moment after the kill: count
	// its panes first rather than race its exit.
	all, _, _ := s.tmux(ctx, "list-panes", "-a", "-F", "#{pane_id}")
	last := strings.Count(strings.TrimSpace(all), "\n") == 0 && strings.TrimSpace(all) != ""
	out, errOut, rc := s.tmux(ctx, "kill-pane", "-t", target)
	if rc == 0 && !last {
		if win := strings.TrimSpace(winOut); strings.HasPrefix(win, "@") {
			s.relayoutWindow(ctx, win)
		}
	}
	_, _, alive := s.tmux(ctx, "list-sessions", "-F", "#{session_id}")
	unlock()
	if (alive != 0 || (rc == 0 && last)) && s.call.Name != "" {
		srv.RemoveLock()
	}
	return s.finish(out, errOut, rc)
}

func (s *Shim) relayoutWindow(ctx context.Context, target string) (string, string, int) {
	win, _, errOut, rc := s.window(ctx, target)
	if rc != 0 {
		return "", errOut, rc
	}
	cmds := relayout(target, layout.After(s.policy, win))
	if len(cmds) == 0 {
		return "", "", 0
	}
	return s.seq(ctx, cmds...)
}

// relayout is the tmux commands that arrange target's window as rl says.
func relayout(target string, rl layout.Relayout) [][]string {
	if rl.Layout == "" {
		return nil
	}
	cmds := [][]string{{"select-layout", "-t", target, string(rl.Layout)}}
	if rl.Lead != "" {
		cmds = append(cmds, []string{"resize-pane", "-t", rl.Lead, "-x", strconv.Itoa(rl.LeadPercent) + "%"})
	}
	return cmds
}

// teammateCommand is the program a pane runs for respawn-pane's command
// words (as tmux runs a one-word command, with a shell's -c, but always
// /bin/sh's; a shell, -c and a line as given), and the agent id of the
// teammate it starts ("" when it names none).
func teammateCommand(args []string) (argv []string, agent string) {
	line := args[len(args)-1]
	argv = args
	if len(args) == 1 {
		argv = []string{"/bin/sh", "-c", line}
	}
	return argv, teammateOf(shellWords(line))
}
