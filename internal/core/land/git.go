package land

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/paneteam/paneteam/internal/sys/envlist"
)

// GitError is a failed git command: where it ran, its arguments, its
// exit code and git's own message.
type GitError struct {
	Dir    string
	Args   []string
	Code   int // the exit code, -1 when git did not run or was killed
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git -C %s %s: %s", e.Dir, strings.Join(e.Args, " "), msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// gitCmd is one git command. It runs with the person's own
// configuration, hooks and signing (nothing here sets a -c), only
// without the variables that would point it at another repository (set
// when paneteam itself runs from a git hook), and with messages in
// English so they can be read.
type gitCmd struct {
	dir  string
	args []string
	env  []string // added to the environment
	// detach puts git in a process group of its own, so a Ctrl-C at
	// the terminal does not stop it half-way through moving the lead's
	// working tree: that step finishes, or never starts.
	detach bool
	stdin  []byte
}

func gitEnv(extra []string) []string {
	env := envlist.Without(os.Environ(), "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
		"GIT_OBJECT_DIRECTORY", "GIT_PREFIX", "LC_ALL", "LANGUAGE", "GIT_TRACE")
	env = append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=:")
	return append(env, extra...)
}

// run returns git's stdout; a failure is a *GitError.
func (g gitCmd) run(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", g.dir}, g.args...)...)
	if g.detach {
		cmd = exec.Command("git", append([]string{"-C", g.dir}, g.args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	cmd.Env = gitEnv(g.env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if g.stdin != nil {
		cmd.Stdin = bytes.NewReader(g.stdin)
	}
	err := cmd.Run()
	if err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return out.String(), &GitError{Dir: g.dir, Args: g.args, Code: code, Stderr: errb.String(), Err: err}
	}
	return out.String(), nil
}

// git runs git in dir and returns its stdout without the final newline.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitCmd{dir: dir, args: args}.run(ctx)
	return strings.TrimRight(out, "\n"), err
}

// exitCode is a *GitError's exit code, -1 for any other error.
func exitCode(err error) int {
	var ge *GitError
	if errors.As(err, &ge) {
		return ge.Code
	}
	return -1
}

// lines splits git's output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// nulFields splits git's -z output.
func nulFields(s string) []string {
	var out []string
	for _, f := range strings.Split(s, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// statusPaths are the paths `git status --porcelain=v1 -z` names: both
// sides of a rename.
func statusPaths(out string) []string {
	fields := nulFields(out)
	var paths []string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		paths = append(paths, f[3:])
		if f[0] == 'R' || f[0] == 'C' {
			if i+1 < len(fields) {
				i++
				paths = append(paths, fields[i])
			}
		}
	}
	return paths
}
