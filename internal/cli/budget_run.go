package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/paneteam/paneteam/team"
)

// runGuarded runs argv, teammate name's program, as a child in this
// terminal held to its budget (budget.Guard.RunChild: past it, asked to
// stop when ask, then SIGTERM, then SIGKILL). Its exit is this
// process's.
func runGuarded(ctx context.Context, env Env, t team.Team, name string, usdLimit float64, argv []string, ask bool) error {
	g, err := budgetGuard(env, t, name, usdLimit)
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = env.Stdin, env.Stdout, env.Stderr, env.Environ()
	err = g.RunChild(ctx, cmd, ask)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if code < 0 {
			code = ExitFailure
		}
		return exitError{code: code, err: fmt.Errorf("%s: %w", argv[0], err)}
	}
	return err
}
