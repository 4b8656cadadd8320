package testutil

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
)

// echoMain stands in for paneteam's main: it prints its args, a variable
// and its stdin, says whether stdout is a terminal, and fails on "fail".
func echoMain(_ context.Context, inv Invocation) int {
	in, _ := io.ReadAll(inv.Stdin)
	fmt.Fprintf(inv.Stdout, "%s|%s|%s|tty=%v", strings.Join(inv.Args, " "), inv.Vars["PANETEAM_ROOT"], in, inv.StdoutTTY)
	if len(inv.Args) > 1 && inv.Args[1] == "fail" {
		fmt.Fprint(inv.Stderr, "it failed")
		inv.Vars["PANETEAM_ROOT"] = "changed by the run"
		return 2
	}
	return 0
}

func TestCLIRunsWithItsOwnEnvironment(t *testing.T) {
	pt := CLI{Main: echoMain, Vars: map[string]string{"PANETEAM_ROOT": "/r"}}
	if got := pt.Must(t, "status", "--json"); got != "paneteam status --json|/r||tty=false" {
		t.Errorf("Must = %q", got)
	}
	if got := pt.Input("hi").With("PANETEAM_ROOT", "/other").Run(t, "send"); got.Stdout != "paneteam send|/other|hi|tty=false" || got.Code != 0 {
		t.Errorf("Input+With = %+v", got)
	}
	r := pt.Run(t, "fail")
	if r.Code != 2 || r.Stderr != "it failed" {
		t.Errorf("a failing run = %+v, want code 2 and its stderr", r)
	}
	if pt.Vars["PANETEAM_ROOT"] != "/r" {
		t.Errorf("a run changed the runner's variables: %v", pt.Vars)
	}
	tty := pt
	tty.TTY = true
	if got := tty.Must(t, "inbox"); !strings.HasSuffix(got, "tty=true") {
		t.Errorf("TTY run = %q", got)
	}
}

func TestCLIMustFailsOnAnExitCode(t *testing.T) {
	msg := failure(func(tb testing.TB) { CLI{Main: echoMain}.Must(tb, "fail") })
	if !strings.Contains(msg, "paneteam fail: exit 2") || !strings.Contains(msg, "it failed") {
		t.Errorf("Must on exit 2 reported %q", msg)
	}
}
