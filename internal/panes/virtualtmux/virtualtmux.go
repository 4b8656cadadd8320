// Package virtualtmux is the state of paneteam's own tmux servers: the
// ones the shim plays for a Claude Code lead in kitty, WezTerm, Zellij or
// iTerm2, whose panes are that terminal's. It owns their folders under
// the state folder, their panes.json, and whether a pane's teammate still
// runs; it drives no terminal, so a team lookup that asks whether a pane
// is alive links no terminal driver (the shim, which serves the calls,
// and internal/panes/native do).
//
// A server's folder holds panes.json, one gate file per pane (FILE.new
// while the pane opens, FILE.pid with "<pid>:<start time>" of what runs
// in it, FILE.run with its command), and the shim's lock.
package virtualtmux

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/lockfile"
)

// EnvTerminal names the terminal of a virtual server ("kitty", ...); set
// by 'paneteam claude' together with EnvState.
const (
	EnvTerminal = "PANETEAM_SHIM_TERMINAL"
	// EnvState is the virtual server's folder.
	EnvState = "PANETEAM_SHIM_STATE"
)

const (
	stateFile = "panes.json"
	socket    = "tmux"
)

// Dir is the folder, under paneteam's state folder, holding one folder
// per lead in a native terminal, named by the lead's pid.
func Dir(state string) string { return filepath.Join(state, "vtmux") }

// Socket is the path $TMUX names for the server in dir: no tmux listens
// there; the shim recognises it.
func Socket(dir string) string { return filepath.Join(dir, socket) }

// State is a virtual server's panes.json.
type State struct {
	// Terminal is the native terminal's name.
	Terminal string `json:"terminal"`
	// Env is the terminal's variables as the lead's start saw them
	// (the driver's address: KITTY_LISTEN_ON, WEZTERM_PANE, ...).
	Env map[string]string `json:"env"`
	// Lead is "<pid>:<start time>" of the lead process.
	Lead string `json:"lead"`
	// Exe is the paneteam binary the panes' gates run.
	Exe string `json:"exe"`
	// Programs are the programs the terminal's driver runs (kitty,
	// wezterm, zellij, it2), by name, as the lead's PATH found them: a
	// later call from a PATH without them ('cleanup --orphans' from cron)
	// still reaches the terminal.
	Programs map[string]string `json:"programs,omitempty"`
	// Log is the shim's log, where a gate that fails says why (its pane
	// closes with it).
	Log string `json:"log,omitempty"`
	// Next is the number of the next pane id (%Next).
	Next  int    `json:"next"`
	Panes []Pane `json:"panes"`
}

// Pane is one pane the shim made.
type Pane struct {
	ID string `json:"id"` // the tmux id Claude knows it by: %N
	// Handle is the terminal's own id (a native.Handle; kept a string
	// here so that reading the state needs no terminal driver).
	Handle string `json:"handle"`
	Gate   string `json:"gate"` // the gate's file
	Title  string `json:"title,omitempty"`
	Agent  string `json:"agent,omitempty"` // name@team once respawned
	Tab    bool   `json:"tab,omitempty"`   // in a tab of its own
	// Width and Height are the pane's notional size, for the layout
	// engine: the terminal is taken as 200x50 cells, split as the
	// layout asked.
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Create makes the folder of a virtual server for a lead about to start,
// dir, with the state st (its Lead is the lead's "<pid>:<start time>"),
// and returns the value of $TMUX to give the lead.
func Create(dir string, st State) (tmuxVar string, err error) {
	if err := os.MkdirAll(filepath.Join(dir, "gates"), 0o700); err != nil {
		return "", fmt.Errorf("make the folder of paneteam's tmux for %s: %w", st.Terminal, err)
	}
	st.Next, st.Panes = 1, nil
	if err := Write(dir, st); err != nil {
		return "", err
	}
	pid, _, _ := strings.Cut(st.Lead, ":")
	return Socket(dir) + "," + pid + ",0", nil
}

// Read reads the state of the virtual server in dir.
func Read(dir string) (State, error) {
	var st State
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return st, fmt.Errorf("read the state of paneteam's tmux: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("the state of paneteam's tmux %s does not parse: %w", dir, err)
	}
	return st, nil
}

// Write puts st back as the state of the server in dir, atomically; the
// caller holds the server's lock.
func Write(dir string, st State) error {
	b, _ := json.MarshalIndent(st, "", "  ")
	if err := lockfile.WriteAtomic(filepath.Join(dir, stateFile), b); err != nil {
		return fmt.Errorf("write the state of paneteam's tmux: %w", err)
	}
	return nil
}

// PaneAlive reports whether paneteam's tmux in dir made pane id, and
// whether what runs in it is alive.
func PaneAlive(dir, id string) (found, alive bool) {
	st, err := Read(dir)
	if err != nil {
		return false, false
	}
	for _, p := range st.Panes {
		if p.ID == id {
			return true, GateAlive(p.Gate)
		}
	}
	return false, false
}

// GateStartLimit is how long a pane's gate may take to start before the
// pane is taken for one the terminal never opened.
const GateStartLimit = 30 * time.Second

// GateAlive reports whether the gate of file, or what it became, runs.
// A gate that has not written its pid yet counts as alive for
// GateStartLimit after its pane was asked for.
func GateAlive(file string) bool {
	b, err := os.ReadFile(file + ".pid")
	if errors.Is(err, fs.ErrNotExist) {
		st, err := os.Stat(file + ".new")
		return err == nil && time.Since(st.ModTime()) < GateStartLimit
	}
	pid, start, ok := ProcTag(string(b))
	return ok && proc.Alive(pid, start)
}

// ProcTag reads a process's "<pid>:<start time>" (the start may be
// empty: only the pid is then checked).
func ProcTag(tag string) (pid int, start string, ok bool) {
	p, start, _ := strings.Cut(strings.TrimSpace(tag), ":")
	pid, err := strconv.Atoi(p)
	return pid, start, err == nil && pid > 1
}

// Sweep removes, under parent, the folders of paneteam's tmux whose lead
// is gone and which hold no pane: what a lead that closed its teammates'
// panes at its exit leaves. A folder with panes left is 'cleanup
// --orphans' to close.
func Sweep(parent string) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		dir := filepath.Join(parent, e.Name())
		st, err := Read(dir)
		if err != nil || len(st.Panes) > 0 {
			continue
		}
		if pid, start, ok := ProcTag(st.Lead); !ok || proc.Alive(pid, start) {
			continue
		}
		os.RemoveAll(dir)
	}
}
