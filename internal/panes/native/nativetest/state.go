// Package nativetest is what the fake terminals under
// internal/panes/native/testdata share, and the small API tests use to
// run them: a JSON state file of windows, tabs and panes (named by an
// environment variable, locked for every change), a log of every call,
// and a detached host per pane that runs the pane's program under a
// pseudo-terminal, keeps what it prints in a file (the pane's screen),
// takes typed input from a FIFO, and closes the pane when the program
// ends, as the terminal would.
package nativetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// Pane is one pane of a fake terminal.
type Pane struct {
	ID        int    `json:"id"`
	WindowID  int    `json:"window_id"`
	TabID     int    `json:"tab_id"`
	TabName   string `json:"tab_name,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	Rows      int    `json:"rows"`
	Cols      int    `json:"cols"`
	Title     string `json:"title,omitempty"`
	Cwd       string `json:"cwd"`
	// Argv is the program the terminal started in the pane; Env is the
	// pane's whole environment.
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	// SplitFrom is the pane this one was split from (-1: none, the first
	// pane of a tab), Direction where it went ("right", "bottom", "left",
	// "top"; Zellij's "right", "down") and Percent its share (0: half).
	SplitFrom int    `json:"split_from"`
	Direction string `json:"direction,omitempty"`
	Percent   int    `json:"percent,omitempty"`
	// CloseOnExit closes the pane when its program ends; otherwise the
	// pane stays, Exited (Zellij's held command panes).
	CloseOnExit bool `json:"close_on_exit"`
	Exited      bool `json:"exited,omitempty"`
	ExitStatus  int  `json:"exit_status,omitempty"`
	Focused     bool `json:"focused,omitempty"`
	HostPID     int  `json:"host_pid,omitempty"`
	// TTY is the pane's terminal device (/dev/pts/N), which Ghostty
	// reports as a terminal's tty.
	TTY string `json:"tty,omitempty"`
	PID int    `json:"pid,omitempty"`
}

// State is a fake terminal's whole world.
type State struct {
	// Kind is "wezterm" or "zellij".
	Kind string `json:"kind"`
	// Socket is WezTerm's mux socket path (WEZTERM_UNIX_SOCKET);
	// Session is Zellij's session name.
	Socket  string `json:"socket,omitempty"`
	Session string `json:"session,omitempty"`
	// BaseEnv is the environment the terminal gives every new pane (the
	// terminal's own, not the caller's of the CLI).
	BaseEnv    []string `json:"base_env"`
	NextPane   int      `json:"next_pane"`
	NextTab    int      `json:"next_tab"`
	NextWindow int      `json:"next_window"`
	// ActiveTab is the tab in front (Zellij); focus is per pane.
	ActiveTab int    `json:"active_tab"`
	Panes     []Pane `json:"panes"`
}

// Pane returns the pane with this id.
func (s *State) Pane(id int) (*Pane, bool) {
	for i := range s.Panes {
		if s.Panes[i].ID == id {
			return &s.Panes[i], true
		}
	}
	return nil, false
}

// Remove drops the pane with this id.
func (s *State) Remove(id int) {
	out := s.Panes[:0]
	for _, p := range s.Panes {
		if p.ID != id {
			out = append(out, p)
		}
	}
	s.Panes = out
}

// Dir is the folder of a state file, which also holds its panes' screens,
// input FIFOs and the call log.
func Dir(statePath string) string { return filepath.Dir(statePath) }

// ScreenPath is the file holding everything pane id printed.
func ScreenPath(statePath string, id int) string {
	return filepath.Join(Dir(statePath), fmt.Sprintf("pane-%d.screen", id))
}

// InputPath is the FIFO whose bytes reach pane id as typed input.
func InputPath(statePath string, id int) string {
	return filepath.Join(Dir(statePath), fmt.Sprintf("pane-%d.in", id))
}

// CallsPath is the log of every call of the fake CLI, one JSON array of
// arguments a line.
func CallsPath(statePath string) string { return statePath + ".calls" }

// Load reads a state file.
func Load(path string) (State, error) {
	var s State
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("read fake terminal state: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("parse fake terminal state %s: %w", path, err)
	}
	return s, nil
}

// Update applies change to the state file under its lock and writes the
// result back atomically. A missing file starts from an empty State.
func Update(path string, change func(*State) error) error {
	fl := flock.New(path + ".lock")
	if err := fl.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", path+".lock", err)
	}
	defer fl.Unlock()
	s, err := Load(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := change(&s); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// LogCall appends one call's arguments to the call log.
func LogCall(statePath string, args []string) {
	f, err := os.OpenFile(CallsPath(statePath), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	b, _ := json.Marshal(struct {
		Time string   `json:"time"`
		Args []string `json:"args"`
	}{time.Now().UTC().Format(time.RFC3339Nano), args})
	f.Write(append(b, '\n'))
}
