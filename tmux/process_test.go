package tmux

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A child that fills both pipes past their buffers (64 KiB on Linux)
// still finishes: both are read as they fill, nothing is lost or stalls.
func TestRunProcessReadsBothPipesInFull(t *testing.T) {
	script := `i=0; while [ $i -lt 3000 ]; do echo "out line $i of a long run"; echo "err line $i of a long run" >&2; i=$((i+1)); done; exit 3`
	out, errb, err := runProcess(context.Background(), "sh", []string{"sh", "-c", script}, nil)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Status.ExitStatus() != 3 || err.Error() != "exit status 3" {
		t.Fatalf("want exit status 3, got %v", err)
	}
	if n := strings.Count(string(out), "\n"); n != 3000 || !strings.HasSuffix(string(out), "out line 2999 of a long run\n") {
		t.Errorf("stdout has %d lines", n)
	}
	if n := strings.Count(string(errb), "\n"); n != 3000 || !strings.HasPrefix(string(errb), "err line 0 ") {
		t.Errorf("stderr has %d lines", n)
	}
}

// Ending ctx (its deadline, or a cancel) kills a child that would run on,
// and the call returns.
func TestRunProcessStopsWithItsContext(t *testing.T) {
	for _, how := range []string{"deadline", "cancel"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			if how == "deadline" {
				ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
			} else {
				time.AfterFunc(100*time.Millisecond, cancel)
			}
			defer cancel()
			start := time.Now()
			_, _, err := runProcess(ctx, "sleep", []string{"sleep", "30"}, nil)
			var ee *ExitError
			if !errors.As(err, &ee) || !ee.Status.Signaled() {
				t.Fatalf("want the child killed, got %v", err)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("returned after %s", took)
			}
		})
	}
}

// The child reads nothing from paneteam's stdin, gets the environment
// asked for, and a missing program is exec's not-found error.
func TestRunProcessEnvStdinAndMissingProgram(t *testing.T) {
	out, _, err := runProcess(context.Background(), "sh", []string{"sh", "-c", `cat; echo "[$PT_X]"`}, []string{"PT_X=y z", "PATH=/usr/bin:/bin"})
	if err != nil || string(out) != "[y z]\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	_, _, err = runProcess(context.Background(), "/nonexistent/tmux", []string{"tmux"}, nil)
	var ee *exec.Error
	if !errors.As(err, &ee) {
		t.Fatalf("want exec's not-found error, got %v", err)
	}
	_, err = Server{Socket: "/nonexistent/sock", Bin: "/nonexistent/tmux"}.Run(context.Background(), "list-panes")
	if !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("want ErrNotInstalled, got %v", err)
	}
}
