// Package native opens and closes panes in the terminal emulator a lead
// runs in, through that terminal's own command line: kitty's remote
// control (kitty @), WezTerm's (wezterm cli), Zellij's (zellij action),
// iTerm2's (it2) and Ghostty's AppleScript on macOS (osascript). It is what lets Claude Code's own teammates, whose
// lead only knows how to drive tmux, land in real panes of any of these
// terminals: the shim (internal/panes/shim) answers Claude's tmux calls
// and carries them out here.
//
// A pane runs a program given as an argv, never a line typed into a
// person's shell. Where a terminal can only type into a new session
// (iTerm2), the driver types a fixed line of paneteam's own that reads
// the program from a 0600 file.
package native

import (
	"context"
	"errors"
	"fmt"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"os"
	"sort"
)

// Terminal is one terminal emulator's panes, seen from a program running
// inside it.
type Terminal interface {
	// Name is the terminal's name as the person knows it: "kitty",
	// "wezterm", "zellij", "iterm2".
	Name() string
	// Probe checks that the terminal can be driven from here. Its error
	// says what is off and how to turn it on (kitty's
	// allow_remote_control and listen_on, iTerm2's Python API).
	Probe(ctx context.Context) error
	// Open starts a program in a new pane and returns the terminal's
	// handle for that pane, once the terminal has made it.
	Open(ctx context.Context, o Open) (Handle, error)
	// Close closes a pane and ends what runs in it. A pane already gone
	// is success.
	Close(ctx context.Context, h Handle) error
	// List returns the panes that exist now, of those this terminal
	// can see (a pane closed by hand is not in it).
	List(ctx context.Context) ([]Handle, error)
}

// Handle is a terminal's own name for a pane: kitty's window id,
// WezTerm's pane id, Zellij's terminal pane id, iTerm2's session id.
type Handle string

// Open is a pane to open.
type Open struct {
	// Argv is the program and its arguments, run as is: no shell.
	Argv []string
	// Env is set for the program (KEY=VALUE) on top of what the terminal
	// gives a new pane.
	Env []string
	// Cwd is the program's working folder ("" leaves the terminal's).
	Cwd string
	// Title names the pane where the terminal shows titles.
	Title string
	// Place is where the pane goes.
	Place Place
}

// Place says where a new pane goes, as paneteam's layout decided it.
type Place struct {
	// Beside is the pane to split; "" is the pane the lead runs in.
	Beside Handle
	// Horizontal puts the new pane beside Beside (side by side);
	// otherwise below it.
	Horizontal bool
	// Percent is the new pane's share of the split (0: half).
	Percent int
	// OwnTab opens the pane in a tab (or window) of its own and leaves
	// the lead's untouched; Beside and the rest are ignored.
	OwnTab bool
}

// Arranger is a Terminal that can arrange the panes around the lead by a
// named layout after panes come and go (kitty's layouts), where the
// others keep the splits they were made with.
type Arranger interface {
	// Arrange lays out the tab holding the lead: "main-vertical" (the
	// lead keeps leadPercent of the width on the left, the rest stacked
	// beside it) or "tiled".
	Arrange(ctx context.Context, kind string, leadPercent int) error
}

// ErrUnavailable is wrapped by Probe and by a constructor when the
// terminal cannot be driven from here.
var ErrUnavailable = errors.New("terminal cannot be driven")

// Env is how a driver learns about its world.
type Env struct {
	// Getenv reads the environment captured where the lead started (the
	// terminal's own variables: KITTY_LISTEN_ON, WEZTERM_PANE, ZELLIJ_*,
	// ITERM_SESSION_ID), which may differ from the caller's own.
	Getenv func(string) string
	// LookPath finds a program (the backend's or the shim's: program.Find
	// on the PATH of the lead or the caller).
	LookPath func(string) (string, error)
	// Exe is the paneteam binary, for a driver that must have a pane run
	// paneteam itself (iTerm2's typed line).
	Exe string
	// Dir is a private 0700 folder the driver may keep files in (iTerm2's
	// 0600 launch files).
	Dir string
	// ReadOnly asks for a driver that changes no file: List leaves the
	// files of panes it finds gone (Zellij's) in place. For a look that
	// must change nothing ('cleanup --orphans --dry-run').
	ReadOnly bool
}

// cliEnviron is this process's environment for a terminal's command
// line, with the terminal's address variables keys as getenv gives them:
// one getenv leaves empty is removed rather than inherited, so a call
// made from another instance of the terminal, or from cron, reaches the
// instance getenv names or none, never the caller's own.
func cliEnviron(getenv func(string) string, keys ...string) []string {
	env := envlist.Without(os.Environ(), keys...)
	for _, k := range keys {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// constructors maps a terminal's name to its driver; each driver's file
// adds itself.
var constructors = map[string]func(Env) (Terminal, error){}

// Names lists the terminals paneteam drives natively, sorted.
func Names() []string {
	var n []string
	for k := range constructors {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// New returns the driver for the named terminal.
func New(name string, env Env) (Terminal, error) {
	c, ok := constructors[name]
	if !ok {
		return nil, fmt.Errorf("paneteam does not drive a terminal named %q (it drives %v)", name, Names())
	}
	return c(env)
}

// Detect names the terminal the environment says the lead runs in ("" when
// none paneteam drives natively): the variables each terminal sets in the
// shells it starts.
func Detect(getenv func(string) string) string {
	switch {
	case getenv("ZELLIJ") != "" || getenv("ZELLIJ_SESSION_NAME") != "":
		return "zellij"
	case getenv("KITTY_WINDOW_ID") != "":
		return "kitty"
	case getenv("WEZTERM_PANE") != "":
		return "wezterm"
	case getenv("TERM_PROGRAM") == "iTerm.app" || getenv("ITERM_SESSION_ID") != "":
		return "iterm2"
	case getenv("TERM_PROGRAM") == "ghostty":
		return "ghostty"
	}
	return ""
}

// Register adds a driver under name, replacing one of that name: for a
// terminal paneteam does not ship a driver for, and for tests.
func Register(name string, c func(Env) (Terminal, error)) { constructors[name] = c }
