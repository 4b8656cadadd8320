package proc_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestStartTimeIdentifiesAProcess(t *testing.T) {
	me, err := proc.StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	again, _ := proc.StartTime(os.Getpid())
	if me == "" || me != again {
		t.Fatalf("start time not stable: %q then %q", me, again)
	}
	if !proc.Alive(os.Getpid(), me) {
		t.Fatal("this process reported dead")
	}
	if proc.Alive(os.Getpid(), me+"0") {
		t.Fatal("a different start time must mean another process")
	}
}

func TestDeadProcess(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if proc.Alive(pid, "") && proc.Exists(pid) {
		// The pid may have been reused in between; only a reaped pid that
		// still exists with no reuse would be a bug, which we cannot tell.
		t.Skipf("pid %d reused already", pid)
	}
	if _, err := proc.StartTime(-1); err == nil {
		t.Fatal("negative pid accepted")
	}
}

// A child that exited but was not reaped still answers kill(pid, 0); it is
// dead all the same.
func TestZombieIsNotAlive(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	start, err := proc.StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, fmt.Sprintf("pid %d exited (unreaped) but is still reported alive", pid), func() bool {
		return !proc.Alive(pid, start)
	})
	if !proc.Exists(pid) {
		t.Fatal("the unreaped child should still exist, or this test proves nothing")
	}
}
