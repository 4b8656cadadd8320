package cli

import "github.com/paneteam/paneteam/internal/core/factory"

// factory is what the run's commands share: the state folder, the root,
// the lead's keys, the teams opened (internal/core/factory). Main makes
// one per run; an Env a test builds by hand gets a fresh one per call, so
// a command's run function can be called with options and an Env alone.
func (e Env) factory() *factory.Factory {
	if e.shared != nil {
		return e.shared
	}
	return factory.New(e.Getenv)
}

// stateDir is paneteam's state folder for this run.
func (e Env) stateDir() (string, error) { return e.factory().StateDir() }

// root is the team root: explicit (--root) when given, else the default.
func (e Env) root(explicit string) (string, error) { return e.factory().Root(explicit) }
