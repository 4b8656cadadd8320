package budget

import (
	"context"
	"slices"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/spawn"
)

// Guarded is a spawn.Program whose command runs under a guard: Prefix
// (a program that runs the rest of the command line as its child and
// stops it past its budget), with Env added.
type Guarded struct {
	Inner  spawn.Program
	Prefix []string
	Env    []string
}

// Check is the inner launcher's.
func (g Guarded) Check(ctx context.Context, cwd string, caller post.Caller) error {
	return g.Inner.Check(ctx, cwd, caller)
}

// Prepare is the inner launcher's command behind the guard.
func (g Guarded) Prepare(ctx context.Context, s spawn.Setup) (spawn.Prepared, error) {
	l, err := g.Inner.Prepare(ctx, s)
	if err != nil {
		return l, err
	}
	l.Argv = append(slices.Clone(g.Prefix), l.Argv...)
	l.Env = append(l.Env, g.Env...)
	return l, nil
}
