package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/internal/sys/program"
)

// GitError is a failed git command: where it ran, its arguments and git's
// own message.
type GitError struct {
	Dir    string
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := e.Stderr
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git -C %s %s: %s", e.Dir, strings.Join(e.Args, " "), msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// ErrNoGit means the git program is not installed.
var ErrNoGit = errors.New("git is not installed (paneteam needs it for teammates' worktrees)")

// git runs one git command in dir and returns its stdout with the final
// newline trimmed. Variables that would point git at another repository
// (set when paneteam runs from a git hook) are dropped, and messages are
// kept in English so callers can read them.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitRaw(ctx, dir, args...)
	return strings.TrimRight(out, "\n"), err
}

func gitRaw(ctx context.Context, dir string, args ...string) (string, error) {
	return gitIn(ctx, dir, "", args...)
}

// gitIn runs git with stdin as its standard input ("" for none).
func gitIn(ctx context.Context, dir, stdin string, args ...string) (string, error) {
	c := program.Cmd{Path: "git", Args: append([]string{"-C", dir}, args...), Env: gitEnv()}
	if stdin != "" {
		c.Stdin = strings.NewReader(stdin)
	}
	out, err := program.Output(ctx, c)
	if pe := (*program.Error)(nil); errors.As(err, &pe) {
		err = pe.Err
		if execErr := (*exec.Error)(nil); errors.As(err, &execErr) {
			err = ErrNoGit
		}
		return "", &GitError{Dir: dir, Args: args, Stderr: pe.Stderr, Err: err}
	}
	return out, err
}

func gitEnv() []string {
	env := envlist.Without(os.Environ(), "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
		"GIT_OBJECT_DIRECTORY", "GIT_PREFIX", "LC_ALL", "LANGUAGE")
	return append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
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
