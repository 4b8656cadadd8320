package testutil

import (
	"bytes"
	"errors"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// Cond is what Eventually waits for: a func() bool that reports true once
// the condition holds, or a func() error that returns nil then (its last
// error says, in the failure, how far things got).
type Cond interface {
	func() bool | func() error
}

// Eventually polls cond until it holds, failing the test with what (and
// cond's last error) once d has passed: tests wait for conditions, never
// for fixed times. It polls every 20 ms for the first second, then every
// 100 ms, so a long wait (Claude Code starting) does not take the CPU from
// what it waits for. Call it from the test's goroutine; cond may end the
// test itself (t.Fatal) when waiting longer is pointless.
//
//	testutil.Eventually(t, 5*time.Second, "the pane is gone", func() bool { return !alive(pane) })
//	testutil.Eventually(t, 5*time.Second, "the inbox holds the reply", func() error { return check(inbox) })
func Eventually[C Cond](t testing.TB, d time.Duration, what string, cond C) {
	t.Helper()
	var try func() error
	switch c := any(cond).(type) {
	case func() bool:
		try = func() error {
			if c() {
				return nil
			}
			return errNotYet
		}
	case func() error:
		try = c
	}
	start := time.Now()
	deadline := start.Add(d)
	for {
		err := try()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			if err == errNotYet {
				t.Fatalf("after %s: %s", d, what)
			}
			t.Fatalf("after %s: %s: %v", d, what, err)
		}
		if time.Since(start) < time.Second {
			time.Sleep(20 * time.Millisecond)
		} else {
			time.Sleep(100 * time.Millisecond)
		}
	}
}

var errNotYet = errors.New("not yet")

// Buffer is an io.Writer that is safe to read while another goroutine (or
// a child process's output copier) writes to it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// GitRepo makes a git repository on branch main with one empty commit.
func GitRepo(t testing.TB) string {
	t.Helper()
	RequireTool(t, "git")
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}
