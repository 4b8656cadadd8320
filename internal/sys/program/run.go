package program

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// waitDelay is how long Output waits for the program's output to close
// once it has exited or been killed: a child it left behind holding the
// pipe would otherwise keep the call waiting for as long as it lives.
const waitDelay = time.Second

// Cmd is one call of a program whose output is read.
type Cmd struct {
	Path string   // the program
	Args []string // its arguments, without the program
	Env  []string // its environment; nil is this process's
	// Name is how errors name the program ("wezterm", not its path);
	// empty is Path.
	Name string
	// Timeout ends the call after this long, or at ctx's deadline if
	// that comes first; 0 leaves it to ctx.
	Timeout time.Duration
	// DefaultTimeout ends the call after this long only when ctx has no
	// deadline: a caller's own deadline, even a later one, is kept.
	DefaultTimeout time.Duration
	// Stdin is the program's standard input; nil reads nothing.
	Stdin io.Reader
	// Stderr, when set, also receives what the program writes on its
	// stderr as it writes it (shown to a person even when the call
	// succeeds); an *Error still carries it, trimmed.
	Stderr io.Writer
}

// Error is a call that failed: the call as a person would type it, the
// program's trimmed stderr, and the cause (an *exec.ExitError, or a
// context error when the call ran out of time).
type Error struct {
	Call   string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	s := e.Call + ": " + e.Err.Error()
	if e.Stderr != "" {
		s += ": " + e.Stderr
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Output runs c, with no standard input unless c.Stdin, and returns its
// stdout. A failure
// is an *Error; the stdout printed before it is returned with it.
func Output(ctx context.Context, c Cmd) (string, error) {
	var cancel context.CancelFunc = func() {}
	if _, ok := ctx.Deadline(); c.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
	} else if !ok && c.DefaultTimeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.DefaultTimeout)
	}
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Env = c.Env
	cmd.WaitDelay = waitDelay
	var out, errb bytes.Buffer
	cmd.Stdin = c.Stdin
	cmd.Stdout, cmd.Stderr = &out, &errb
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(&errb, c.Stderr)
	}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		name := c.Name
		if name == "" {
			name = c.Path
		}
		return out.String(), &Error{
			Call:   strings.Join(append([]string{name}, c.Args...), " "),
			Stderr: strings.TrimSpace(errb.String()),
			Err:    err,
		}
	}
	return out.String(), nil
}
