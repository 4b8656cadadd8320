package it2test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// Build compiles the fake it2 once per test process and returns its path.
func Build(t testing.TB) string {
	t.Helper()
	return testutil.Tool(t, "fakeit2", "./iterm2/testdata/fakeit2")
}

// Fake is one fake iTerm2 for one test: a window with one tab holding the
// lead's session, and an "it2" on a private PATH folder that talks to it.
type Fake struct {
	t         testing.TB
	Dir       string // holds it2, the state and the log
	Bin       string // the it2 to run (a wrapper naming this fake's state)
	StatePath string // path of the state file
	Log       string // path of the call log
	// LeadID is the lead's session; ITermSessionID is what iTerm2 puts
	// in the lead's ITERM_SESSION_ID.
	LeadID         string
	ITermSessionID string

	flavor Flavor
}

// New makes a fake iTerm2 imitating the given it2 flavour.
func New(t testing.TB, flavor Flavor) *Fake {
	t.Helper()
	bin := Build(t)
	dir := t.TempDir()
	f := &Fake{
		t: t, Dir: dir, Bin: filepath.Join(dir, "it2"),
		StatePath: filepath.Join(dir, "state.json"), Log: filepath.Join(dir, "calls.log"),
		LeadID: "B9FAD42C-1D2E-4C5B-9F10-3A4B5C6D7E8F", flavor: flavor,
	}
	f.ITermSessionID = "w0t0p0:" + f.LeadID
	f.Write(State{
		Profiles: []string{"Default"},
		Active:   f.LeadID,
		Sessions: []*Session{{Listed: Listed{
			ID: f.LeadID, Name: "lead (-zsh)", Title: "-zsh", TTY: "/dev/ttys000",
			Rows: 50, Cols: 200, WindowID: "pty-6F1E2D3C", TabID: "1",
		}}},
	})
	// The wrapper carries the fake's environment, so code under test finds
	// "it2" through its LookPath seam and tests may run in parallel.
	// Plain sh builtins only: the PATH it runs with may hold nothing else.
	script := fmt.Sprintf("#!/bin/sh\nexport %s=%s %s=%s %s=%s\nexec %s \"$@\"\n",
		EnvState, shq(f.StatePath), EnvLog, shq(f.Log), EnvFlavor, shq(string(flavor)), shq(bin))
	testutil.WriteExecutable(t, f.Bin, []byte(script))
	return f
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// LookPath resolves "it2" to this fake and nothing else, standing in for
// the lookup of backend.Env.
func (f *Fake) LookPath(name string) (string, error) {
	if name == "it2" {
		return f.Bin, nil
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// Read returns the current state.
func (f *Fake) Read() State {
	f.t.Helper()
	b, err := os.ReadFile(f.StatePath)
	if err != nil {
		f.t.Fatal(err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		f.t.Fatalf("fake it2 state: %v", err)
	}
	return st
}

// Write replaces the state.
func (f *Fake) Write(st State) {
	f.t.Helper()
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(f.StatePath, b, 0o600); err != nil {
		f.t.Fatal(err)
	}
}

// Change applies fn to the state, between two calls of the code under test.
func (f *Fake) Change(fn func(*State)) {
	f.t.Helper()
	st := f.Read()
	fn(&st)
	f.Write(st)
}

// CloseSession closes a session as the person closing its pane does:
// the session leaves iTerm2's list and, in a hosted fake (Host), its
// program is hung up (SIGHUP to its process group, killed after a grace
// period), as iTerm2 hangs up a closed session's terminal. It takes the
// lock every it2 call takes, so it lands between two calls.
func (f *Fake) CloseSession(id string) {
	f.t.Helper()
	lk := flock.New(f.StatePath + ".lock")
	if err := lk.Lock(); err != nil {
		f.t.Fatal(err)
	}
	defer lk.Unlock()
	var gone *Session
	f.Change(func(st *State) {
		for i, s := range st.Sessions {
			if s.ID == id {
				gone = s
				st.Sessions = append(st.Sessions[:i], st.Sessions[i+1:]...)
				return
			}
		}
		f.t.Fatalf("fake it2: no session %s to close", id)
	})
	if gone != nil && gone.Hosted {
		HangUp(PanesPath(f.StatePath), gone.Pane)
	}
}

// Session returns the session with that id, or nil.
func (f *Fake) Session(id string) *Session {
	for _, s := range f.Read().Sessions {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Calls returns every call made so far, in order.
func (f *Fake) Calls() []Call {
	f.t.Helper()
	b, err := os.ReadFile(f.Log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	var calls []Call
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var c Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			f.t.Fatalf("fake it2 log line %q: %v", sc.Text(), err)
		}
		calls = append(calls, c)
	}
	return calls
}

// Argvs returns the calls' argument lists joined by spaces, for compact
// assertions.
func (f *Fake) Argvs() []string {
	var out []string
	for _, c := range f.Calls() {
		out = append(out, strings.Join(c.Argv, " "))
	}
	return out
}
