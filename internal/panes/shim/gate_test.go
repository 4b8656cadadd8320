package shim

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// startGate runs 'paneteam shim-gate FILE' as a terminal's pane would,
// with env as its whole environment, and waits for its pid file.
func startGate(t *testing.T, file string, env []string) (*exec.Cmd, *bytes.Buffer, <-chan error) {
	t.Helper()
	os.MkdirAll(filepath.Dir(file), 0o700)
	os.WriteFile(file+".new", nil, 0o600)
	cmd := exec.Command(testutil.Binary(t), GateCommand, file)
	cmd.Env = env
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	exited := make(chan struct{})
	go func() { done <- cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	waitFile(t, file+".pid")
	return cmd, &errb, done
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
	file := filepath.Join(dir, "gates", "1")
	ran := filepath.Join(dir, "ran")
	_, out, done := startGate(t, file, []string{"PATH=" + os.Getenv("PATH")})
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
}
