package tmux

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
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

// Placeholder keeps a pane open that runs nothing of the user's (the
// first window of the hidden session). Two arguments, so tmux execs it
// directly rather than through the user's default-shell.
var Placeholder = []string{"sleep", "2147483647"}

// NewGate returns a fresh wait-for channel name for Gated.
func NewGate() string {
	var b [8]byte
	rand.Read(b[:])
	return "paneteam-" + hex.EncodeToString(b[:])
}

// Gated is cmd held at a gate: the pane's /bin/sh (not the user's
// default-shell, which may read slow rc files) waits on the tmux channel
// gate (tmux(1) wait-for), then replaces itself with the command. Start
// opens the gate once the pane's options are set, so remain-on-exit is in
// force before the command can exit, and nothing is ever typed. When the
// command cannot be started, sh says why in the pane.
//
// (Starting on a placeholder and then respawn-pane -k, the other way to
// get there, sometimes loses the first output of a command that exits at
// once: tmux 3.3 resets the respawned pane's screen concurrently.)
func (s Server) Gated(cmd Command, gate string) (Command, error) {
	sock, err := s.SocketPath()
	if err != nil {
		return Command{}, err
	}
	// exec.LookPath, not program.Find: Bin may be a path, and it is
	// looked up on this process's own PATH, as runProcess does.
	bin, err := exec.LookPath(s.bin())
	if err != nil {
		return Command{}, fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	wait := ShellJoin([]string{bin, "-S", sock, "wait-for", gate})
	line := wait + " 2>/dev/null; " + ExecLine(cmd.Argv)
	return Command{Argv: []string{"/bin/sh", "-c", line}, Cwd: cmd.Cwd, Env: cmd.Env}, nil
}

// NewPane is a pane just made, with its window's border styles as they
// were when it was made: the call that makes it prints them (-P -F), so
// Start needs no tmux client of its own to read them (one a spawn less).
type NewPane struct {
	ID                   string
	PID                  int    // its process: a Gated command's sh, which execs the command (0: not read)
	Border, ActiveBorder string // pane-border-style, pane-active-border-style
	read                 bool   // the styles were read (a NewPane{ID: id} of a pane made elsewhere: Start reads them)
}

// newPaneVars are what a new pane's making prints.
var newPaneVars = [...]string{"pane_id", "pane_pid", "pane-border-style", "pane-active-border-style"}

// newPane runs args, a command making one pane, with -P -F and cmd's
// arguments, and reads what it prints.
func (s Server) newPane(ctx context.Context, args []string, cmd Command) (NewPane, error) {
	args = append(args, "-P", "-F", Format(newPaneVars[:]...))
	out, err := s.Run(ctx, append(args, paneArgs(cmd)...)...)
	if err != nil {
		return NewPane{}, err
	}
	recs, err := ParseLines(out, len(newPaneVars))
	if err != nil || len(recs) != 1 {
		// The pane is made: its id (printed as it is, first) is kept so
		// the caller can still take the pane back or start it.
		id, _, _ := strings.Cut(out, fieldSep)
		return NewPane{ID: id}, nil
	}
	pid, _ := strconv.Atoi(recs[0][1])
	return NewPane{ID: recs[0][0], PID: pid, Border: recs[0][2], ActiveBorder: recs[0][3], read: true}, nil
}

// SplitPane makes a new pane as sp says, running cmd as tmux execs it
// (no shell of the user's). The pane does not take the focus (-d).
func (s Server) SplitPane(ctx context.Context, sp layout.Split, cmd Command) (NewPane, error) {
	dir := "-v"
	if sp.Horizontal {
		dir = "-h"
	}
	args := []string{"split-window", "-d", dir, "-t", sp.Target}
	if sp.Percent != 0 {
		args = append(args, "-l", strconv.Itoa(sp.Percent)+"%")
	}
	return s.newPane(ctx, args, cmd)
}

// NewWindow makes a window of its own, after the window holding target
// in the same session, whose one pane runs cmd. It does not take the
// focus (-d).
func (s Server) NewWindow(ctx context.Context, target string, cmd Command) (NewPane, error) {
	// new-window takes a window, not a pane, as its target.
	win, err := s.Run(ctx, "display-message", "-p", "-t", target, "#{window_id}")
	if err != nil {
		return NewPane{}, err
	}
	return s.newPane(ctx, []string{"new-window", "-a", "-d", "-t", win}, cmd)
}

// NewSession creates a detached session whose first pane runs cmd,
// starting the server if needed. A detached session has no client to
// take its size from, so it gets one; it resizes to the first client
// that attaches.
func (s Server) NewSession(ctx context.Context, name string, cmd Command, width, height int) (NewPane, error) {
	return s.newPane(ctx, []string{"new-session", "-d", "-s", name, "-x", strconv.Itoa(width), "-y", strconv.Itoa(height)}, cmd)
}

// paneArgs are the -c, -e and command arguments of a new pane.
func paneArgs(cmd Command) []string {
	var args []string
	if cmd.Cwd != "" {
		args = append(args, "-c", FormatEscape(cmd.Cwd))
	}
	for _, kv := range cmd.Env {
		args = append(args, "-e", kv)
	}
	return append(append(args, "--"), cmd.Argv...)
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

// Start marks and styles a pane made with a Gated command, opens its
// gate, and re-lays out its window, in one tmux call, in this order:
//   - remain-on-exit failed (tmux >= 3.3): a command that fails stays on
//     screen with its output, and its status is kept in pane_dead_status;
//   - the agent option, title, colour, and the window's border styles and
//     pane-border-status top (titles on the borders);
//   - wait-for -S gate: the command starts (a signal sent before the pane
//     waits is kept by tmux, so there is no race);
//   - select-layout and resize-pane as rl says.
//
// The window's border styles are p's, read when it was made.
func (s Server) Start(ctx context.Context, p NewPane, look Look, gate string, rl layout.Relayout) error {
	pane := p.ID
	seq := [][]string{
		{"set-option", "-p", "-t", pane, "remain-on-exit", "failed"},
		{"set-option", "-p", "-t", pane, AgentOption, look.Agent},
		{"select-pane", "-t", pane, "-T", FormatEscape(look.Title)},
		{"set-option", "-w", "-t", pane, "pane-border-status", "top"},
	}
	if look.Color != "" {
		border, active := p.Border, p.ActiveBorder
		if !p.read {
			styles, err := s.Display(ctx, pane, "pane-border-style", "pane-active-border-style")
			if err != nil {
				return fmt.Errorf("start pane %s: %w", pane, err)
			}
			border, active = styles[0], styles[1]
		}
		seq = append(seq,
			[]string{"set-option", "-p", "-t", pane, ColorOption, look.Color},
			[]string{"set-option", "-w", "-t", pane, "pane-border-style", borderStyle(border)},
			[]string{"set-option", "-w", "-t", pane, "pane-active-border-style", borderStyle(active)})
	}
	seq = append(seq, []string{"wait-for", "-S", gate})
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
