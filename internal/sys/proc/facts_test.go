package proc_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestInspectLiveProcess(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := int64(cmd.Process.Pid)
	f := proc.Inspect(pid)
	if f.NoSuchProcess || f.Zombie {
		t.Fatalf("a running sleep looks gone: %+v", f)
	}
	want, _ := proc.StartTime(cmd.Process.Pid)
	if f.StartTicks == "" || f.StartTicks != want {
		t.Fatalf("start ticks %q, want %q", f.StartTicks, want)
	}
	// Started a moment ago: its start in ms is within a few seconds of now
	// (ticks are 10 ms; btime is rounded to the second).
	now := float64(time.Now().UnixMilli())
	if !f.StartKnown || f.StartMillis > now+2000 || f.StartMillis < now-5000 {
		t.Fatalf("start %v ms, now %v ms", f.StartMillis, now)
	}
}

func TestInspectZombieAndGone(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	cmd.Process.Signal(syscall.SIGKILL)
	// Not waited for: a zombie until reaped.
	testutil.Eventually(t, 5*time.Second, fmt.Sprintf("killed child %d never showed as a zombie", pid), func() error {
		if f := proc.Inspect(int64(pid)); !f.Zombie {
			return fmt.Errorf("%+v", f)
		}
		return nil
	})
	if proc.Inspect(int64(pid)).NoSuchProcess {
		t.Fatal("a zombie still exists for kill(pid, 0)")
	}
	cmd.Wait()
	if f := proc.Inspect(int64(pid)); !f.NoSuchProcess && !f.Zombie {
		t.Skipf("pid %d reused already", pid)
	}
}

func TestInspectNeverProbesGroups(t *testing.T) {
	for _, pid := range []int64{0, 1, -1, -5, 1 << 31, 1 << 40} {
		if f := proc.Inspect(pid); f.NoSuchProcess {
			t.Errorf("pid %d: reported gone; Claude Code never probes it and cannot prove it dead", pid)
		}
	}
}

func TestPIDSpace(t *testing.T) {
	host, _ := os.Hostname()
	ns, err := os.Readlink("/proc/self/ns/pid")
	got := proc.PIDSpace()
	if err != nil {
		if got != host {
			t.Fatalf("PIDSpace %q, want the hostname %q", got, host)
		}
		return
	}
	if got != host+"#"+ns || !strings.HasPrefix(ns, "pid:[") {
		t.Fatalf("PIDSpace %q, want %q", got, host+"#"+ns)
	}
}

func TestAncestorsAndEnviron(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = []string{"PANETEAM_PROBE=yes"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	a := proc.Ancestors(cmd.Process.Pid)
	if len(a) < 2 || a[0] != cmd.Process.Pid || a[1] != os.Getpid() {
		t.Fatalf("ancestors of the child %v, want it then this test %d", a, os.Getpid())
	}
	env, err := proc.Environ(cmd.Process.Pid)
	if err != nil || env["PANETEAM_PROBE"] != "yes" {
		t.Fatalf("environ %v, %v", env, err)
	}
}
