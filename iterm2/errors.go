package iterm2

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
)

// Sentinel errors mapped from it2's exit codes and stderr in one place
// (classify), for both it2 flavours: the Python one from PyPI and the Swift
// one that ships with iTerm2 3.7.
var (
	// ErrNotInstalled: no it2 program to run.
	ErrNotInstalled = errors.New("it2 is not installed")
	// ErrAPIUnavailable: it2 runs but cannot reach iTerm2 (not inside
	// iTerm2, or its Python API is off). it2 --version still succeeds then,
	// which is why it is never used as a check.
	ErrAPIUnavailable = errors.New("iTerm2's Python API is not reachable")
	// ErrSessionNotFound: the session id names no live session (the user
	// closed the pane, or the id was never iTerm2's).
	ErrSessionNotFound = errors.New("iTerm2 session not found")
)

// What a person does about ErrNotInstalled and ErrAPIUnavailable.
const (
	FixInstall = "install it2 with 'pipx install it2' (or put the it2 that ships with iTerm2 3.7+ on PATH)"
	FixAPI     = "enable iTerm2's Python API: iTerm2 > Settings > General > Magic > Enable Python API, then run the command again"
)

// Exit codes of the Python it2 (click): 2 for usage errors and for "not in
// iTerm2 / API off", 3 for an unknown session id. The Swift it2 exits 1
// for every failure, so its stderr text decides.
const pythonExitNoSuchSession = 3

// Error is a failed it2 call: its arguments, exit code, trimmed stderr and
// the underlying (possibly sentinel) error.
type Error struct {
	Args   []string
	Code   int // exit code; -1 when it2 did not run
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := e.Stderr
	if msg == "" {
		msg = e.Err.Error()
	}
	msg = strings.ReplaceAll(msg, "\n", " ")
	if e.Code >= 0 {
		return fmt.Sprintf("it2 %s: exit %d: %s", strings.Join(e.Args, " "), e.Code, msg)
	}
	return fmt.Sprintf("it2 %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// apiTexts are stderr fragments (lower-cased) meaning "cannot reach
// iTerm2": the Python it2 prints "Error: Not running inside iTerm2 or
// Python API not enabled."; the Swift one reports a failed connection.
var apiTexts = []string{
	"not running inside iterm2",
	"python api not enabled",
	"connect to iterm2",
	"api is not enabled",
}

// classify maps a failed run of it2 to a sentinel error where one fits.
func classify(err error, code int, stderr string) error {
	var execErr *exec.Error
	if errors.As(err, &execErr) || errors.Is(err, fs.ErrNotExist) {
		return ErrNotInstalled
	}
	low := strings.ToLower(stderr)
	for _, t := range apiTexts {
		if strings.Contains(low, t) {
			return ErrAPIUnavailable
		}
	}
	// Python: "Error: Session '<id>' not found" (exit 3);
	// Swift: "Error: Session not found" (exit 1).
	if code == pythonExitNoSuchSession ||
		(strings.Contains(low, "session") && strings.Contains(low, "not found")) {
		return ErrSessionNotFound
	}
	return err
}
