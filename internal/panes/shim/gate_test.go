package shim

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// startGate makes a virtual server in dir for lead ("<pid>:<start>"),
// logging to dir/log, and runs 'paneteam shim-gate FILE' for its first
// pane as a terminal's pane would, with env as its whole environment; it
// waits for the gate's pid file.
func startGate(t *testing.T, dir, lead string, env []string) (file string, out *bytes.Buffer, done <-chan error) {
	t.Helper()
	if _, err := virtualtmux.Create(dir, virtualtmux.State{Terminal: "testterm", Lead: lead, Exe: testutil.Binary(t), Log: filepath.Join(dir, "log")}); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "gates", "1")
	os.WriteFile(file+".new", nil, 0o600)
	cmd := exec.Command(testutil.Binary(t), GateCommand, file)
	cmd.Env = env
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan error, 1)
	exited := make(chan struct{})
	go func() { ch <- cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	waitFile(t, file+".pid")
	return file, &errb, ch
}

// selfLead is this test process as a lead that stays alive.
func selfLead() string {
	start, _ := proc.StartTime(os.Getpid())
	return strconv.Itoa(os.Getpid()) + ":" + start
}

func waitExit(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the gate still runs", what)
	}
	return nil
}

func TestGateRefusesACommandFileOthersCouldHaveWritten(t *testing.T) {
	dir := testutil.ShortTempDir(t)
	ran := filepath.Join(dir, "ran")
	file, out, done := startGate(t, dir, selfLead(), []string{"PATH=" + os.Getenv("PATH")})
	// What respawn-pane writes, but readable by others: it may not be
	// what paneteam wrote, and nothing of it may run.
	tmp, err := native.WriteExecFile(filepath.Dir(file), native.Open{Argv: []string{"/bin/sh", "-c", "touch " + ran}})
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o644)
	os.Rename(tmp, file+".run")
	if err := waitExit(t, done, "a 0644 command file"); err == nil {
		t.Fatal("the gate exited 0 on a command file others could write")
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the gate ran the command of a 0644 file")
	}
	if !strings.Contains(out.String(), "0600") {
		t.Errorf("the gate's error does not say why: %q", out)
	}
	// The pane closes with the gate: its error is in the shim's log.
	if log, _ := os.ReadFile(filepath.Join(dir, "log")); !strings.Contains(string(log), `"gate":"`+file+`"`) || !strings.Contains(string(log), "0600") {
		t.Errorf("the shim's log does not hold the gate's failure:\n%s", log)
	}
}

// TestGateEndsWithItsLead: a lead that dies between opening a pane and
// handing it its command leaves a gate with nothing to wait for: it ends
// (its pane closes) within a few seconds and says why in the log.
func TestGateEndsWithItsLead(t *testing.T) {
	lead := exec.Command("sleep", "300")
	if err := lead.Start(); err != nil {
		t.Fatal(err)
	}
	defer lead.Process.Kill()
	start, _ := proc.StartTime(lead.Process.Pid)
	dir := testutil.ShortTempDir(t)
	_, out, done := startGate(t, dir, strconv.Itoa(lead.Process.Pid)+":"+start, []string{"PATH=" + os.Getenv("PATH")})
	select {
	case err := <-done:
		t.Fatalf("the gate of a live lead ended: %v %s", err, out)
	case <-time.After(1500 * time.Millisecond):
	}
	lead.Process.Kill()
	lead.Wait()
	if err := waitExit(t, done, "the lead died"); err == nil {
		t.Fatal("the gate exited 0 without running a command")
	}
	if !strings.Contains(out.String(), "lead") {
		t.Errorf("the gate's error does not say its lead ended: %q", out)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "log")); !strings.Contains(string(log), "lead (pid "+strconv.Itoa(lead.Process.Pid)+") ended") {
		t.Errorf("the shim's log does not say the lead ended:\n%s", log)
	}
}
