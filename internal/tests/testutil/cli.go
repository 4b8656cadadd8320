package testutil

import (
	"bytes"
	"context"
	"io"
	"maps"
	"os"
	"strings"
	"testing"
)

// Invocation is one run of paneteam's command line: what a MainFunc gets.
type Invocation struct {
	Args           []string          // argv, "paneteam" first
	Vars           map[string]string // the whole environment the run sees
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	StdoutTTY      bool // stdout is a terminal
}

// MainFunc runs paneteam's command line in this process and returns its
// exit code. Package cli's tests pass one that calls cli.Main (testutil
// cannot import package cli, whose own tests use testutil).
type MainFunc func(ctx context.Context, inv Invocation) int

// CLI runs paneteam's command line in this process, with an environment
// of its own (never the test process's; but, unless it gives a HOME, with
// the test process's state and config folders, as Env, so that paneteam
// does not fall back to the person's HOME), and returns what it printed:
//
//	pt := testutil.CLI{Main: main, Vars: map[string]string{"PANETEAM_ROOT": root}}
//	out := pt.Must(t, "team-create", "crew")
//	res := pt.Input("hello").Run(t, "send", "--team", "crew", "--to", "alice", "-")
type CLI struct {
	Main  MainFunc
	Vars  map[string]string
	Stdin string
	TTY   bool // run as if stdout were a terminal
}

// Result is what one run printed and its exit code.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs `paneteam args...`.
func (c CLI) Run(t testing.TB, args ...string) Result {
	t.Helper()
	if c.Main == nil {
		t.Fatal("testutil.CLI has no Main")
	}
	var out, errb bytes.Buffer
	vars := maps.Clone(c.Vars)
	if vars == nil {
		vars = map[string]string{}
	}
	if home, given := vars["HOME"]; !ownHome(home, given) {
		for _, k := range testFolderVars {
			if _, set := vars[k]; !set {
				vars[k] = os.Getenv(k)
			}
		}
	}
	code := c.Main(context.Background(), Invocation{
		Args: append([]string{"paneteam"}, args...), Vars: vars,
		Stdin: strings.NewReader(c.Stdin), Stdout: &out, Stderr: &errb, StdoutTTY: c.TTY,
	})
	return Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// Must runs `paneteam args...`, fails the test unless it exits 0, and
// returns its stdout.
func (c CLI) Must(t testing.TB, args ...string) string {
	t.Helper()
	r := c.Run(t, args...)
	if r.Code != 0 {
		t.Fatalf("paneteam %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// With is c with more variables (KEY, VALUE pairs) set; c is unchanged.
func (c CLI) With(kv ...string) CLI {
	if len(kv)%2 != 0 {
		panic("testutil.CLI.With wants KEY, VALUE pairs")
	}
	vars := maps.Clone(c.Vars)
	if vars == nil {
		vars = map[string]string{}
	}
	for i := 0; i < len(kv); i += 2 {
		vars[kv[i]] = kv[i+1]
	}
	c.Vars = vars
	return c
}

// Input is c reading stdin from s.
func (c CLI) Input(s string) CLI {
	c.Stdin = s
	return c
}
