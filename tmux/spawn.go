package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/layout"
)

// Command is what runs in a new pane.
type Command struct {
	Argv []string // run as is, through exec
	Cwd  string   // start directory
	Env  []string // KEY=VALUE added to the pane's environment
}

// Look is how a teammate's pane is marked and drawn.
type Look struct {
	Agent string // AgentOption value: the agent id
	Title string // pane title (the agent's name)
	Color string // tmux colour of its borders
}

// placeholder holds a new pane until respawn-pane replaces it with the
// real command. Nothing is ever typed into it. Two arguments, so tmux
// execs it directly rather than through the user's default-shell.
var placeholder = []string{"sleep", "2147483647"}

// launcher is the argv tmux execs for cmd. /bin/sh (not the user's
// default-shell, which may read slow rc files) replaces itself with the
// command at once; when the command cannot be started, sh says why in the
// pane, which remain-on-exit keeps on screen.
func launcher(cmd Command) []string {
	return []string{"/bin/sh", "-c", ExecLine(cmd.Argv)}
}

// SplitPane makes a new pane as sp says, running the placeholder, and
// returns its id. The pane does not take the focus (-d).
func (s Server) SplitPane(ctx context.Context, sp layout.Split, cwd string) (string, error) {
	dir := "-v"
	if sp.Horizontal {
		dir = "-h"
	}
	args := []string{"split-window", "-d", dir, "-t", sp.Target, "-P", "-F", "#{pane_id}"}
	if sp.Percent != 0 {
		args = append(args, "-l", strconv.Itoa(sp.Percent)+"%")
	}
	if cwd != "" {
		args = append(args, "-c", FormatEscape(cwd))
	}
	args = append(args, "--")
	return s.Run(ctx, append(args, placeholder...)...)
}

// NewSession creates a detached session whose first pane runs the
// placeholder, starting the server if needed, and returns that pane. A
// detached session has no client to take its size from, so it gets one;
// it resizes to the first client that attaches.
func (s Server) NewSession(ctx context.Context, name, cwd string, width, height int) (string, error) {
	args := []string{"new-session", "-d", "-s", name, "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "-P", "-F", "#{pane_id}"}
	if cwd != "" {
		args = append(args, "-c", FormatEscape(cwd))
	}
	args = append(args, "--")
	return s.Run(ctx, append(args, placeholder...)...)
}

// ColorOption is the pane user option holding a teammate's border colour.
// tmux 3.3 has pane-border-style only per window, but expands it as a
// format for each pane it draws (screen-redraw.c), so the window's style
// picks each pane's colour from this option.
const ColorOption = "@paneteam-color"

// borderStyle is the window border style that draws a teammate's border
// in its ColorOption and every other pane as before (old).
func borderStyle(old string) string {
	if strings.Contains(old, ColorOption) {
		return old
	}
	if old == "" {
		old = "default"
	}
	return "#{?" + ColorOption + ",fg=#{" + ColorOption + "}," + escapeCommas(old) + "}"
}

// Start marks and styles pane, replaces its placeholder with cmd, and
// re-lays out its window, in one tmux call, in this order:
//   - remain-on-exit failed (tmux >= 3.3): a command that fails stays on
//     screen with its output, and its status is kept in pane_dead_status;
//   - the agent option, title, colour, and the window's border styles and
//     pane-border-status top (titles on the borders);
//   - respawn-pane -k: the placeholder is killed and cmd started on the
//     pane's terminal as its first and only process; nothing is typed;
//   - select-layout and resize-pane as rl says.
func (s Server) Start(ctx context.Context, pane string, look Look, cmd Command, rl layout.Relayout) error {
	seq := [][]string{
		{"set-option", "-p", "-t", pane, "remain-on-exit", "failed"},
		{"set-option", "-p", "-t", pane, AgentOption, look.Agent},
		{"select-pane", "-t", pane, "-T", FormatEscape(look.Title)},
		{"set-option", "-w", "-t", pane, "pane-border-status", "top"},
	}
	if look.Color != "" {
		styles, err := s.Run(ctx, "display-message", "-p", "-t", pane, "#{pane-border-style}"+fieldSep+"#{pane-active-border-style}")
		if err != nil {
			return fmt.Errorf("start pane %s: %w", pane, err)
		}
		border, active, _ := strings.Cut(styles, fieldSep)
		seq = append(seq,
			[]string{"set-option", "-p", "-t", pane, ColorOption, look.Color},
			[]string{"set-option", "-w", "-t", pane, "pane-border-style", borderStyle(border)},
			[]string{"set-option", "-w", "-t", pane, "pane-active-border-style", borderStyle(active)})
	}
	respawn := []string{"respawn-pane", "-k", "-t", pane}
	if cmd.Cwd != "" {
		respawn = append(respawn, "-c", FormatEscape(cmd.Cwd))
	}
	for _, kv := range cmd.Env {
		respawn = append(respawn, "-e", kv)
	}
	respawn = append(respawn, "--")
	seq = append(seq, append(respawn, launcher(cmd)...))
	seq = append(seq, relayout(pane, rl)...)
	if _, err := s.RunSeq(ctx, seq...); err != nil {
		return fmt.Errorf("start pane %s: %w", pane, err)
	}
	return nil
}

// Relayout re-lays out the window holding target as rl says.
func (s Server) Relayout(ctx context.Context, target string, rl layout.Relayout) error {
	seq := relayout(target, rl)
	if len(seq) == 0 {
		return nil
	}
	_, err := s.RunSeq(ctx, seq...)
	return err
}

func relayout(target string, rl layout.Relayout) [][]string {
	if rl.Layout == "" {
		return nil
	}
	seq := [][]string{{"select-layout", "-t", target, string(rl.Layout)}}
	if rl.Lead != "" {
		seq = append(seq, []string{"resize-pane", "-t", rl.Lead, "-x", strconv.Itoa(rl.LeadPercent) + "%"})
	}
	return seq
}
