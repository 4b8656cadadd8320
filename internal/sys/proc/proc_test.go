package proc_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
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

// execLoops is how many times the helper below replaces itself.
const execLoops = 300

// TestMain lets this test binary be the helper that execs itself from a
// thread other than its main one, as Go's syscall.Exec may.
func TestMain(m *testing.M) {
	if n := os.Getenv("PROC_TEST_EXEC_LOOP"); n != "" {
		left, _ := strconv.Atoi(n)
		if left <= 0 {
			time.Sleep(200 * time.Millisecond)
			os.Exit(0)
		}
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread() // not the main thread: that one runs TestMain
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "PROC_TEST_EXEC_LOOP=") {
					env = append(env, kv)
				}
			}
			env = append(env, "PROC_TEST_EXEC_LOOP="+strconv.Itoa(left-1))
			syscall.Exec("/proc/self/exe", os.Args, env)
			close(done)
		}()
		<-done
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// A process whose other thread is in execve shows its main thread as a
// zombie for an instant; Alive must not call it dead then ('paneteam
// claude' becoming Claude was taken for a Claude that exited).
func TestAliveThroughExecFromAnotherThread(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROC_TEST_EXEC_LOOP="+strconv.Itoa(execLoops))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := cmd.Process.Pid
	looks, dead, gone := 0, 0, 0
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the helper failed: %v", err)
			}
			if dead > 0 {
				t.Fatalf("Alive called the process dead %d times of %d while it was replacing itself", dead, looks)
			}
			if looks < 100 {
				t.Fatalf("only %d looks at the process: the test proves little", looks)
			}
			return
		default:
		}
		looks++
		// A "dead" counts only once the process is seen alive after it:
		// the ones at the very end are its real exit, seen before Wait
		// has reported it.
		if proc.Alive(pid, "") {
			dead += gone
			gone = 0
		} else {
			gone++
		}
	}
}
