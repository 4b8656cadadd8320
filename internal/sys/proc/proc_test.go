package proc

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestStartTimeIdentifiesAProcess(t *testing.T) {
	me, err := StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	again, _ := StartTime(os.Getpid())
	if me == "" || me != again {
		t.Fatalf("start time not stable: %q then %q", me, again)
	}
	if !Alive(os.Getpid(), me) {
		t.Fatal("this process reported dead")
	}
	if Alive(os.Getpid(), me+"0") {
		t.Fatal("a different start time must mean another process")
	}
}

func TestDeadProcess(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if Alive(pid, "") && Exists(pid) {
		// The pid may have been reused in between; only a reaped pid that
		// still exists with no reuse would be a bug, which we cannot tell.
		t.Skipf("pid %d reused already", pid)
	}
	if _, err := StartTime(-1); err == nil {
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
	start, err := StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for Alive(pid, start) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d exited (unreaped) but is still reported alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !Exists(pid) {
		t.Fatal("the unreaped child should still exist, or this test proves nothing")
	}
}
