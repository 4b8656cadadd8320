package land

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// hooked runs g with git's trace going to a file of its own, so that
// when it fails the hook that stopped it can be named: git runs hooks
// one after another and stops at the first that fails, so the last hook
// the trace shows started is the one.
func hooked(ctx context.Context, g gitCmd) error {
	f, err := os.CreateTemp("", "paneteam-land-trace-")
	if err != nil {
		_, err = g.run(ctx)
		return err
	}
	f.Close()
	defer os.Remove(f.Name())
	g.env = append(g.env, "GIT_TRACE="+f.Name())
	_, err = g.run(ctx)
	if err == nil {
		return nil
	}
	trace, _ := os.ReadFile(f.Name())
	if hook := lastHook(string(trace)); hook != "" {
		var ge *GitError
		out := err.Error()
		if errors.As(err, &ge) {
			out = ge.Stderr
		}
		return &HookError{Hook: hook, Output: out}
	}
	return err
}

// lastHook is the name of the last hook a GIT_TRACE log shows git
// running ("trace: run_command: ... .git/hooks/pre-commit").
func lastHook(trace string) string {
	hook := ""
	for _, l := range strings.Split(trace, "\n") {
		_, cmd, ok := strings.Cut(l, "trace: run_command: ")
		if !ok {
			continue
		}
		f := strings.Fields(cmd)
		for _, w := range f {
			if strings.Contains(w, "hooks/") {
				hook = filepath.Base(strings.Trim(w, "'\""))
			}
		}
	}
	return hook
}
