// Package claudestart plans how 'paneteam claude' starts Claude Code as a
// team's lead, so that every teammate Claude's lead spawns lands in a pane
// paneteam makes: Claude runs in its tmux teammate mode with agent teams
// on, and the first tmux on its PATH is paneteam itself (a link named
// tmux, internal/panes/shim), told through the environment which server
// is the lead's and which layout to use.
package claudestart

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/panes/shim"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/tmux"
)

// Options are what the person asked for and the world paneteam runs in.
type Options struct {
	Getenv  func(string) string
	Environ []string // the environment Claude would otherwise get
	Exe     string   // the paneteam binary
	Claude  string   // the claude to run (a full path)
	Args    []string // Claude's own arguments, after --
	Layout  layout.Kind
	// Backend is "", "auto", "tmux" or a terminal paneteam drives
	// natively (native.Names: iterm2, kitty, wezterm, zellij).
	Backend string
	// Probe checks that a native terminal can be driven from here
	// (backend.ProbeNative when nil).
	Probe func(name string) error
	// StateDir is paneteam's state folder: the shim's link and log live
	// there.
	StateDir string
	// Cwd is where Claude starts (its project settings are read there).
	Cwd string
	// Release is the Claude Code release of Claude ("" unknown).
	Release string
}

// Start is how to start Claude.
type Start struct {
	Path string   // the program
	Argv []string // its arguments, argv[0] first
	Env  []string // its whole environment
	// Terminal is where the teammates' panes go: "tmux" (beside the
	// lead, in the tmux it runs in), "tmux-private" (a private server
	// 'paneteam attach' shows), or a terminal paneteam drives natively
	// ("kitty", "wezterm", "zellij", "iterm2").
	Terminal string
	// Virtual is the tmux server of paneteam's own to make before Claude
	// starts, for a native terminal (nil otherwise).
	Virtual *Virtual
	// Notes are what the person should know before Claude takes the
	// screen (a fallback, a setting that keeps panes from opening).
	Notes []string
	Log   string // the shim's log
	Shim  string // the shim's link
}

// Virtual is paneteam's tmux for a lead in a native terminal: made by
// Prepare, just before Claude starts, in Dir with the state given
// (the terminal, its variables for the driver, the lead's "<pid>:<start
// time>", the paneteam the panes' gates run, the shim's log).
type Virtual struct {
	Dir string
	virtualtmux.State
}

// Prepare makes what l needs on disk before Claude starts (paneteam's
// tmux for a native terminal); a dry run does not call it.
func (l Start) Prepare() error {
	v := l.Virtual
	if v == nil {
		return nil
	}
	virtualtmux.Sweep(filepath.Dir(v.Dir))
	// An earlier lead had this pid: it is gone, and so must be what it
	// left open.
	if st, err := virtualtmux.Read(v.Dir); err == nil && len(st.Panes) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		shim.CloseAll(ctx, v.Dir, os.Getenv)
		cancel()
	}
	os.RemoveAll(v.Dir)
	_, err := virtualtmux.Create(v.Dir, v.State)
	return err
}

// probeGuessing probes the named terminal's driver, as
// backend.ProbeNative does, for a driver that may have to guess which
// pane is the lead's (Ghostty without tty takes the focused terminal):
// the guess goes to *chose, for the person to hear. The driver's files
// go to a folder of the probe's own, removed after it.
func probeGuessing(env native.Env, name string, chose *string) error {
	dir, err := os.MkdirTemp("", "ptprobe")
	if err != nil {
		return fmt.Errorf("a folder for the probe of %s: %w", displayName(name), err)
	}
	defer os.RemoveAll(dir)
	env.Dir = dir
	d, err := native.New(name, env)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Probe(ctx); err != nil {
		return err
	}
	if c, ok := d.(native.LeadChooser); ok {
		*chose = c.LeadChoice()
	}
	return nil
}

// displayName is a terminal's name as its makers write it.
func displayName(name string) string {
	switch name {
	case "iterm2":
		return "iTerm2"
	case "wezterm":
		return "WezTerm"
	case "zellij":
		return "Zellij"
	case "ghostty":
		return "Ghostty"
	}
	return name
}

// UsageError is a wrong option; its message names the fix. Option is the
// field of Options it is about ("Backend", "Layout", "Args"), which each
// front end names as its own flag.
type UsageError struct {
	Option string
	Value  string // what was given
	Msg    string // what is wrong, after the option and its value
}

func (e *UsageError) Error() string { return e.Words(strings.ToLower(e.Option)) }

// Words is the refusal with the option named as a front end names it.
func (e *UsageError) Words(option string) string {
	switch e.Option {
	case OptArgs:
		return fmt.Sprintf("Claude's %s is set by this launch itself (tmux, through paneteam): leave it out of Claude's arguments", ReservedFlag)
	case OptBackend:
		return option + " " + e.Value + ": " + e.Msg
	}
	return option + ": " + e.Msg
}

// The options a UsageError can be about.
const (
	OptArgs    = "Args"
	OptBackend = "Backend"
	OptLayout  = "Layout"
)

// BackendError is a terminal asked for by name that cannot be driven.
type BackendError struct {
	Name string
	Err  error
}

func (e *BackendError) Error() string { return "backend " + e.Name + ": " + e.Err.Error() }

func (e *BackendError) Unwrap() error { return e.Err }

// ErrNoTmuxPane is a lead started from inside tmux but not from a pane
// of it: its teammates' panes would have nowhere to split from.
var ErrNoTmuxPane = errors.New("$TMUX is set but $TMUX_PANE is not: start Claude's lead from a shell inside a tmux pane")

// ReservedFlag is the flag of Claude's that 'paneteam claude' sets itself.
const ReservedFlag = "--teammate-mode"

// Plan works out the Launch for o.
func Plan(o Options) (Start, error) {
	for _, a := range o.Args {
		if a == ReservedFlag || strings.HasPrefix(a, ReservedFlag+"=") {
			return Start{}, &UsageError{Option: OptArgs, Value: a}
		}
	}
	nativeName := ""
	switch o.Backend {
	case "", "auto", "tmux":
	default:
		if !slices.Contains(native.Names(), o.Backend) {
			return Start{}, &UsageError{Option: OptBackend, Value: o.Backend,
				Msg: "use auto, tmux, or one of the terminals paneteam drives: " + strings.Join(native.Names(), ", ")}
		}
		nativeName = o.Backend
	}
	if _, err := layout.ParseKind(string(o.Layout)); err != nil {
		return Start{}, &UsageError{Option: OptLayout, Value: string(o.Layout), Msg: err.Error()}
	}
	// The programs the terminal's driver finds on the lead's PATH are
	// recorded for calls made from another PATH (cron's).
	programs := map[string]string{}
	probe := o.Probe
	chose := "" // the driver's guess of the lead's pane, said to the person
	if probe == nil {
		probe = func(name string) error {
			look := func(prog string) (string, error) {
				p, err := program.Find(prog, o.Getenv("PATH"))
				if err == nil && filepath.IsAbs(p) {
					programs[prog] = p
				}
				return p, err
			}
			if name == "ghostty" {
				return probeGuessing(native.Env{Getenv: o.Getenv, Exe: o.Exe, LookPath: look}, name, &chose)
			}
			return backend.ProbeNative(backend.Env{Getenv: o.Getenv, Exe: o.Exe, LookPath: look}, name)
		}
	}
	var notes []string
	if nativeName != "" {
		if err := probe(nativeName); err != nil {
			return Start{}, &BackendError{Name: nativeName, Err: err}
		}
		if chose != "" {
			notes = append(notes, chose)
		}
	} else if o.Backend != "tmux" && o.Getenv("TMUX") == "" {
		if name := native.Detect(o.Getenv); name != "" {
			if err := probe(name); err == nil {
				nativeName = name
				if chose != "" {
					notes = append(notes, chose)
				}
			} else {
				notes = append(notes, fmt.Sprintf("%s panes are unavailable (%v): Claude's teammates run in a private tmux server instead; see them with 'paneteam attach --team <team>' (or run paneteam claude inside tmux)", displayName(name), err))
			}
		}
	}
	real, _, err := shim.FindReal(o.Getenv, o.Exe)
	if err != nil && nativeName == "" {
		return Start{}, err
	}
	l := Start{Path: o.Claude, Argv: append([]string{"claude", ReservedFlag, "tmux"}, o.Args...)}
	dir, err := linkShim(o.StateDir, o.Exe)
	if err != nil {
		return Start{}, err
	}
	l.Shim = filepath.Join(dir, "tmux")
	l.Log = filepath.Join(o.StateDir, "claude-tmux.log")

	set := map[string]string{
		"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1",
		"PATH":                                 dir + string(filepath.ListSeparator) + o.Getenv("PATH"),
		shim.EnvDir:                            dir,
		shim.EnvTmux:                           real,
		shim.EnvLog:                            l.Log,
		shim.EnvLayout:                         string(o.Layout),
		shim.EnvClaude:                         o.Release,
	}
	drop := map[string]bool{shim.EnvSocket: true, virtualtmux.EnvTerminal: true, virtualtmux.EnvState: true}
	l.Notes = notes
	if nativeName != "" {
		// Claude Code believes it runs inside tmux: its calls go to
		// paneteam's own server, which opens the panes in the terminal.
		start, _ := proc.StartTime(os.Getpid())
		lead := strconv.Itoa(os.Getpid()) + ":" + start
		vdir := filepath.Join(virtualtmux.Dir(o.StateDir), strconv.Itoa(os.Getpid()))
		l.Virtual = &Virtual{Dir: vdir, State: virtualtmux.State{
			Terminal: nativeName, Env: shim.TerminalVars(o.Environ), Lead: lead, Exe: o.Exe, Log: l.Log, Programs: programs,
		}}
		set["TMUX"] = filepath.Join(vdir, "tmux") + "," + strconv.Itoa(os.Getpid()) + ",0"
		set["TMUX_PANE"] = "%0"
		set[shim.EnvSocket] = filepath.Join(vdir, "tmux")
		set[virtualtmux.EnvTerminal] = nativeName
		set[virtualtmux.EnvState] = vdir
		delete(drop, shim.EnvSocket)
		delete(drop, virtualtmux.EnvTerminal)
		delete(drop, virtualtmux.EnvState)
		l.Terminal = nativeName
		if real == "" {
			delete(set, shim.EnvTmux)
		}
	} else if v := o.Getenv("TMUX"); v != "" {
		srv, err := tmux.FromTMUX(v)
		if err != nil {
			return Start{}, err
		}
		if o.Getenv("TMUX_PANE") == "" {
			return Start{}, ErrNoTmuxPane
		}
		set[shim.EnvSocket] = srv.Socket
		delete(drop, shim.EnvSocket)
		l.Terminal = "tmux"
	} else {
		l.Terminal = "tmux-private"
		if len(l.Notes) == 0 {
			l.Notes = append(l.Notes, "outside tmux, Claude's teammates run in a private tmux server; see them with 'paneteam attach --team <team>' from another terminal")
		}
	}
	if l.Terminal != "tmux" {
		// In iTerm2, Claude Code would drive it2 itself and never call
		// tmux: outside tmux it must not see iTerm2's variables.
		for _, k := range shim.ITerm2Vars(o.Getenv) {
			drop[k] = true
		}
	}
	if why := forcedInProcess(o.Getenv, o.Cwd); why != "" {
		l.Notes = append(l.Notes, why)
	}
	l.Env = envlist.Edit(o.Environ, set, slices.Collect(maps.Keys(drop))...)
	return l, nil
}

// FindClaude is the claude in the folders of path.
func FindClaude(path string) (string, error) {
	if p, err := program.Find("claude", path); err == nil {
		return p, nil
	}
	return "", errors.New("no claude on PATH: install Claude Code (npm install -g @anthropic-ai/claude-code) or add its folder to PATH")
}

// linkShim makes (or finds) the folder holding a link named tmux to the
// paneteam binary exe, under state: one folder per binary, so that two
// installs never share a link.
func linkShim(state, exe string) (string, error) {
	if exe == "" {
		return "", errors.New("cannot tell where the paneteam binary is, to put it on Claude's PATH as tmux")
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	sum := sha256.Sum256([]byte(exe))
	dir := filepath.Join(state, "shim", fmt.Sprintf("%x", sum[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("make the folder of paneteam's tmux: %w", err)
	}
	link := filepath.Join(dir, "tmux")
	if cur, err := os.Readlink(link); err == nil && cur == exe {
		return dir, nil
	}
	tmp := link + fmt.Sprintf(".%d.tmp", os.Getpid())
	os.Remove(tmp)
	if err := os.Symlink(exe, tmp); err != nil {
		return "", fmt.Errorf("link paneteam as tmux: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("link paneteam as tmux: %w", err)
	}
	return dir, nil
}

// forcedInProcess says why Claude Code will run every teammate in its
// own process whatever the teammate mode ("" when nothing forces it):
// the setting permissions.blockFileToolReadsOutsideWorkingDirectories,
// in any of the settings files Claude Code reads (docs/PROTOCOL.md §13,
// "Backend choice").
func forcedInProcess(getenv func(string) string, cwd string) string {
	cfg := getenv("CLAUDE_CONFIG_DIR")
	if cfg == "" && getenv("HOME") != "" {
		cfg = filepath.Join(getenv("HOME"), ".claude")
	}
	var files []string
	if cfg != "" {
		files = append(files, filepath.Join(cfg, "settings.json"), filepath.Join(cfg, "settings.local.json"))
	}
	if cwd != "" {
		files = append(files, filepath.Join(cwd, ".claude", "settings.json"), filepath.Join(cwd, ".claude", "settings.local.json"))
	}
	files = append(files, "/etc/claude-code/managed-settings.json", "/Library/Application Support/ClaudeCode/managed-settings.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // absent or unreadable: Claude Code does not apply it either
		}
		var s struct {
			Permissions struct {
				Block *bool `json:"blockFileToolReadsOutsideWorkingDirectories"`
			} `json:"permissions"`
		}
		if json.Unmarshal(b, &s) == nil && s.Permissions.Block != nil && *s.Permissions.Block {
			return fmt.Sprintf("%s sets permissions.blockFileToolReadsOutsideWorkingDirectories, which makes Claude Code run every teammate inside its own process: no teammate will get a pane (remove the setting to get panes)", f)
		}
	}
	return ""
}
