package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestTeammateHungUpEndsItsProgram: the pane of a teammate wrapper is
// closed (its process hung up): the wrapper ends its program, even one
// that ignores the hang-up, as some agent CLIs do; nothing is left.
func TestTeammateHungUpEndsItsProgram(t *testing.T) {
	root, vars := ptRootVars(t)
	if _, errs, code := ptRun(t, vars, "", "team-create", "crew", "--leader-pid", strconv.Itoa(os.Getpid())); code != 0 {
		t.Fatal(errs)
	}
	ptAddMember(t, root, "crew", "w")
	marker := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command(testutil.Binary(t), "teammate", "--team", "crew", "--name", "w", "--",
		"sh", "-c", "trap '' HUP; echo $$ > "+marker+"; exec sleep 600")
	cmd.Env = []string{"PANETEAM_ROOT=" + root, "HOME=" + vars["HOME"], "PATH=" + os.Getenv("PATH")}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var pid int
	testutil.Eventually(t, 20*time.Second, "the program to start", func() bool {
		b, err := os.ReadFile(marker)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	cmd.Process.Signal(syscall.SIGHUP)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the wrapper did not end when hung up")
	}
	testutil.Eventually(t, 10*time.Second, "the program that ignores hang-ups to end", func() bool {
		return syscall.Kill(pid, 0) != nil
	})
}
