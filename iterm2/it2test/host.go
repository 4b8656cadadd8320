package it2test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// HostOptions make a fake iTerm2's sessions real (Fake.Host).
type HostOptions struct {
	// Shell is what every new session runs, its words separated by
	// spaces ("": bash without rc files, "<bash> --norc --noprofile").
	Shell string
	// Env is iTerm2's own environment, which every session inherits
	// with iTerm2's variables added (ITERM_SESSION_ID, TERM_PROGRAM=
	// iTerm.app, LC_TERMINAL=iTerm2, TERM=xterm-256color, ...).
	Env []string
	// Lead is the first session's program (nil: the shell), started in
	// Cwd ("": the home folder of Env).
	Lead []string
	Cwd  string
}

// Host turns f into an iTerm2 whose sessions run programs: the lead's
// session starts o.Lead now, and every session a split or a new tab makes
// runs o.Shell, under a pseudo-terminal of its own. 'it2 session run'
// then types into that program, 'session close' hangs it up, and a
// session whose program ended leaves the list. The returned Terminal
// reads the sessions' screens and pids (by Session.Pane). Every
// program is ended when the test ends. Missing bash skips the test
// (fails under PANETEAM_REQUIRE_ALL=1) when o.Shell is "".
func (f *Fake) Host(o HostOptions) *nativetest.Terminal {
	f.t.Helper()
	if o.Shell == "" {
		o.Shell = testutil.RequireTool(f.t, "bash") + " --norc --noprofile"
	}
	script := fmt.Sprintf("#!/bin/sh\nexport %s=%s %s=%s %s=%s %s=%s\nexec %s \"$@\"\n",
		EnvState, shq(f.StatePath), EnvLog, shq(f.Log), EnvFlavor, shq(string(f.flavor)),
		EnvShell, shq(o.Shell), shq(Build(f.t)))
	testutil.WriteExecutable(f.t, f.Bin, []byte(script))
	tm := &nativetest.Terminal{Kind: "iterm2", Bin: f.Bin, BinDir: f.Dir, State: PanesPath(f.StatePath), Dir: f.Dir}
	f.t.Cleanup(tm.Stop)
	args := []string{"__start"}
	if o.Cwd != "" {
		args = append(args, "--cwd", o.Cwd)
	}
	cmd := exec.Command(f.Bin, append(append(args, "--"), o.Lead...)...)
	cmd.Env = o.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("start the fake iTerm2's first session: %v\n%s", err, out)
	}
	return tm
}

// Program is hosted session id's program, as the fake's host records it
// (its pid, environment, size); ok is false when the session is not
// hosted or its program has ended.
func (f *Fake) Program(id string) (p nativetest.Pane, ok bool) {
	f.t.Helper()
	s := f.Session(id)
	if s == nil || !s.Hosted {
		return p, false
	}
	st, err := nativetest.Load(PanesPath(f.StatePath))
	if err != nil {
		return p, false
	}
	q, ok := st.Pane(s.Pane)
	if !ok {
		return p, false
	}
	return *q, true
}

// Listed is what 'it2 session list --json' prints now: the sessions
// iTerm2 has, a hosted session whose program ended no longer among them.
func (f *Fake) Listed() ([]Listed, error) {
	cmd := exec.Command(f.Bin, "session", "list", "--json")
	cmd.Env = os.Environ()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("it2 session list --json: %w", err)
	}
	var ls []Listed
	if err := json.Unmarshal(out, &ls); err != nil {
		return nil, fmt.Errorf("it2 session list --json: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return ls, nil
}
