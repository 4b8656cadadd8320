// Package it2test runs paneteam's tests against a fake it2: a small
// program (testdata/fakeit2) that behaves like the real Python it2 0.2.x,
// or like the Swift it2 of iTerm2 3.7, keeping iTerm2's windows, tabs and
// sessions in a JSON state file and logging every call. CI has no macOS;
// this is the faithful stand-in docs/TESTING.md §3 asks for.
package it2test

import (
	"path/filepath"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
)

// Flavor selects which it2 the fake imitates (FAKEIT2_FLAVOR).
type Flavor string

const (
	// Python is PyPI's it2: exit 2 for "API off", exit 3 and
	// "Error: Session '<id>' not found" for an unknown id.
	Python Flavor = "python"
	// Swift is the it2 shipped with iTerm2 3.7: same commands, exit 1 and
	// "Error: Session not found".
	Swift Flavor = "swift"
)

// Environment variables the fake reads.
const (
	EnvState  = "FAKEIT2_STATE"  // path of the JSON state file (required)
	EnvLog    = "FAKEIT2_LOG"    // path of the call log (JSON lines)
	EnvFlavor = "FAKEIT2_FLAVOR" // python (default) or swift
	// EnvShell, when set, makes the fake's new sessions real: each runs
	// this shell (its words split at spaces, e.g. "/bin/bash --norc
	// --noprofile") under a pseudo-terminal; see Fake.Host.
	EnvShell = "FAKEIT2_SHELL"
)

// PanesPath is where a hosted fake (EnvShell) keeps its sessions'
// programs: the state file of internal/panes/native/nativetest, whose
// folder also holds each program's screen and input.
func PanesPath(statePath string) string {
	return filepath.Join(filepath.Dir(statePath), "sessions", "state.json")
}

// State is the fake iTerm2: what the fake reads and writes on every call.
type State struct {
	// APIOff makes every call except --version fail as when iTerm2's
	// Python API is disabled (or it2 runs outside iTerm2).
	APIOff bool `json:"apiOff,omitempty"`
	// FailSplit, when set, makes every split fail with this message and
	// exit 2 (Python) / 1 (Swift), like a pane too small to split.
	FailSplit string `json:"failSplit,omitempty"`
	// Profiles lists the profiles -p accepts.
	Profiles []string   `json:"profiles"`
	Active   string     `json:"active"` // session used when -s is absent
	NextTTY  int        `json:"nextTty"`
	Sessions []*Session `json:"sessions"`
}

// Session is one fake session: what 'it2 session list --json' prints,
// then the fake's own record.
type Session struct {
	Listed

	// SplitFrom is the session this one was split from, Vertical how.
	SplitFrom string `json:"splitFrom,omitempty"`
	Vertical  bool   `json:"vertical,omitempty"`
	Profile   string `json:"profile,omitempty"`
	// Typed is everything typed into the session, in order
	// ('session run' adds a carriage return).
	Typed []string `json:"typed,omitempty"`
	// Hosted sessions run a program; Pane is its pane in PanesPath's
	// state.
	Hosted bool `json:"hosted,omitempty"`
	Pane   int  `json:"pane,omitempty"`
}

// Listed is one entry of 'it2 session list --json', exactly as it2 prints
// it.
type Listed struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Title    string `json:"title"`
	TTY      string `json:"tty"`
	Rows     int    `json:"rows"`
	Cols     int    `json:"cols"`
	IsTmux   bool   `json:"is_tmux"`
	WindowID string `json:"window_id"`
	TabID    string `json:"tab_id"`
}

// Call is one line of the fake's log.
type Call struct {
	Argv []string `json:"argv"`
	Exit int      `json:"exit"`
}

// HangUp ends the program of a hosted session's pane in the state at
// panesPath, as iTerm2 closing the session does: the pane leaves the
// state and its host hangs up the program. Shared by the fake's 'session
// close' and Fake.CloseSession, so both close a session alike.
func HangUp(panesPath string, pane int) {
	var gone nativetest.Pane
	found := false
	nativetest.Update(panesPath, func(st *nativetest.State) error {
		if p, ok := st.Pane(pane); ok {
			gone, found = *p, true
			st.Remove(pane)
		}
		return nil
	})
	if found {
		nativetest.KillHost(gone)
	}
}
