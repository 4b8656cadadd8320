package native

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// An exec file carries a pane's program from the driver to the pane
// where a terminal can only type into a new session (iTerm2): the driver
// writes it, types the fixed line 'exec <paneteam> pane-exec <file>', and
// the hidden command reads it back and execs the program. Nothing the
// teammate's argv holds is ever typed, so nothing of it meets a shell.

// execFile is an exec file's content.
type execFile struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env,omitempty"`
	Cwd  string   `json:"cwd,omitempty"`
}

// maxExecFile bounds what RunExecFile reads: an argv and environment,
// not a data file.
const maxExecFile = 4 << 20

// WriteExecFile writes o's argv, env and cwd to a new 0600 file in dir
// (made 0700 if missing) and returns its path, for 'paneteam pane-exec'.
func WriteExecFile(dir string, o Open) (path string, err error) {
	if len(o.Argv) == 0 || o.Argv[0] == "" {
		return "", errors.New("no program to run in the pane (empty argv)")
	}
	for _, kv := range o.Env {
		if !envlist.Valid(kv) {
			return "", fmt.Errorf("environment entry %q is not KEY=VALUE", kv)
		}
	}
	b, err := json.Marshal(execFile{Argv: o.Argv, Env: o.Env, Cwd: o.Cwd})
	if err != nil {
		return "", fmt.Errorf("encode the pane's program: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("make the folder for pane launch files: %w", err)
	}
	// CreateTemp makes the file 0600 with O_EXCL: a fresh name nobody
	// else holds.
	f, err := os.CreateTemp(dir, "pane-*.json")
	if err != nil {
		return "", fmt.Errorf("write the pane's launch file: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(b); err != nil {
		f.Close()
		return "", fmt.Errorf("write the pane's launch file %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("write the pane's launch file %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// ReadExecFile reads and removes the exec file at path, after checking
// that it is what WriteExecFile makes: a regular file (not a symlink)
// owned by this user and readable by nobody else (mode 0600). Anything
// else may have been planted by someone else, and is refused and left
// alone.
func ReadExecFile(path string) (argv, env []string, cwd string, err error) {
	// O_NOFOLLOW: a symlink fails to open (ELOOP) instead of being read
	// through; the checks below are on the opened file itself, so the
	// name cannot be swapped between the check and the read.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, nil, "", fmt.Errorf("pane launch file %s is a symlink; refusing it (paneteam writes a regular file)", path)
		}
		return nil, nil, "", fmt.Errorf("pane launch file: %w (it is used once: was this pane started twice?)", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, "", fmt.Errorf("pane launch file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, "", fmt.Errorf("pane launch file %s is not a regular file (%s); refusing it", path, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != execFileOwner() {
		return nil, nil, "", fmt.Errorf("pane launch file %s belongs to user %d, not to you (%d); refusing it", path, st.Uid, execFileOwner())
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		return nil, nil, "", fmt.Errorf("pane launch file %s has mode %#o, not 0600: others could have changed it; refusing it", path, perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxExecFile+1))
	if err != nil {
		return nil, nil, "", fmt.Errorf("read pane launch file %s: %w", path, err)
	}
	if len(b) > maxExecFile {
		return nil, nil, "", fmt.Errorf("pane launch file %s is larger than %d bytes; refusing it", path, maxExecFile)
	}
	var x execFile
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, nil, "", fmt.Errorf("pane launch file %s is not one paneteam wrote: %w", path, err)
	}
	if len(x.Argv) == 0 || x.Argv[0] == "" {
		return nil, nil, "", fmt.Errorf("pane launch file %s names no program", path)
	}
	// Used once: removed before the program starts, so a later run of
	// the same line finds nothing.
	if err := os.Remove(path); err != nil {
		return nil, nil, "", fmt.Errorf("remove pane launch file: %w", err)
	}
	return x.Argv, x.Env, x.Cwd, nil
}

// RunExecFile replaces the calling process with the program of the exec
// file at path (ReadExecFile): in its cwd, with this process's
// environment plus its env entries, argv as is (no shell). It returns
// only on failure.
func RunExecFile(path string) error {
	argv, env, cwd, err := ReadExecFile(path)
	if err != nil {
		return err
	}
	if cwd != "" {
		if err := os.Chdir(cwd); err != nil {
			return fmt.Errorf("start %s in %s: %w", argv[0], cwd, err)
		}
	}
	// Set in this process first, so PATH from env decides where argv[0]
	// is found, as it would for the program's own children.
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("set %s for %s: %w", k, argv[0], err)
		}
	}
	// exec.LookPath, not program.Find: argv[0] may be a path, the PATH
	// is now this process's own, and what is found is run at once, so
	// one found through a relative PATH entry is refused (exec.ErrDot).
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("start %s: %w", argv[0], err)
	}
	if err := syscall.Exec(prog, argv, os.Environ()); err != nil {
		return fmt.Errorf("start %s (%s): %w", argv[0], prog, err)
	}
	return nil
}

// execFileOwner is the user a launch file must belong to: the one running
// paneteam (a test sets another).
var execFileOwner = os.Getuid
