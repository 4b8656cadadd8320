package program

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func sh(script string) Cmd {
	return Cmd{Path: "/bin/sh", Name: "sh", Args: []string{"-c", script}}
}

func TestOutput(t *testing.T) {
	ctx := context.Background()
	out, err := Output(ctx, sh("echo hello; echo noise >&2"))
	if err != nil || out != "hello\n" {
		t.Fatalf("Output = %q, %v; want stdout alone", out, err)
	}

	c := sh("printf x=$X; echo '  it broke  ' >&2; exit 3")
	c.Env = []string{"X=1"}
	out, err = Output(ctx, c)
	var e *Error
	var exit *exec.ExitError
	if !errors.As(err, &e) || !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("error %v (%T): want an *Error around the exit status", err, err)
	}
	want := "sh -c printf x=$X; echo '  it broke  ' >&2; exit 3: exit status 3: it broke"
	if err.Error() != want {
		t.Errorf("error text\n got %q\nwant %q", err.Error(), want)
	}
	if out != "x=1" {
		t.Errorf("stdout before the failure = %q, want x=1 (the given environment)", out)
	}

	_, err = Output(ctx, sh("exit 1"))
	if err == nil || err.Error() != "sh -c exit 1: exit status 1" {
		t.Errorf("no stderr: error %v, want no trailing colon", err)
	}
	_, err = Output(ctx, Cmd{Path: "/nonexistent/tool"})
	if err == nil || !strings.HasPrefix(err.Error(), "/nonexistent/tool: ") {
		t.Errorf("unnamed program: error %v, want it named by its path", err)
	}
}

// A caller may give the program its input, and show a person its stderr
// as it comes, even when the call succeeds.
func TestOutputStdinAndStderr(t *testing.T) {
	c := sh("cat; echo said >&2")
	c.Stdin = strings.NewReader("in\n")
	var shown strings.Builder
	c.Stderr = &shown
	out, err := Output(context.Background(), c)
	if err != nil || out != "in\n" || shown.String() != "said\n" {
		t.Fatalf("Output = %q, %v, stderr shown %q; want the input back and the stderr shown", out, err, shown.String())
	}
	c = sh("echo broke >&2; exit 2")
	shown.Reset()
	c.Stderr = &shown
	_, err = Output(context.Background(), c)
	var e *Error
	if !errors.As(err, &e) || e.Stderr != "broke" || shown.String() != "broke\n" {
		t.Errorf("failure: error %v, stderr shown %q; want both to carry it", err, shown.String())
	}
}

// elapsed runs c under ctx and says how long it took and how it failed.
func elapsed(ctx context.Context, c Cmd) (time.Duration, error) {
	start := time.Now()
	_, err := Output(ctx, c)
	return time.Since(start), err
}

func TestOutputTimeouts(t *testing.T) {
	bg := context.Background()

	c := sh("exec sleep 30")
	c.Timeout = 200 * time.Millisecond
	long, cancel := context.WithTimeout(bg, time.Minute)
	defer cancel()
	if d, err := elapsed(long, c); !errors.Is(err, context.DeadlineExceeded) || d > 10*time.Second {
		t.Errorf("Timeout under a later deadline: %v after %s; want the Timeout to end it", err, d)
	}

	c = sh("exec sleep 30")
	c.DefaultTimeout = 200 * time.Millisecond
	if d, err := elapsed(bg, c); !errors.Is(err, context.DeadlineExceeded) || d > 10*time.Second {
		t.Errorf("DefaultTimeout without a deadline: %v after %s; want it to end the call", err, d)
	} else if !strings.Contains(err.Error(), "sh -c exec sleep 30: context deadline exceeded") {
		t.Errorf("timed-out error %q does not name the call and the deadline", err)
	}

	c = sh("sleep 1; echo done")
	c.DefaultTimeout = 50 * time.Millisecond
	if _, err := elapsed(long, c); err != nil {
		t.Errorf("DefaultTimeout under the caller's own later deadline: %v; want the caller's deadline kept", err)
	}

	// A child left holding stdout does not keep the call for its life.
	start := time.Now()
	out, _ := Output(bg, sh("sleep 30 & echo $!"))
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a background child held the call for %s", d)
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(out)); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
