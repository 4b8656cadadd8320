// Package cli is paneteam's command line: one file per command, errors and
// exit codes decided here in one place.
package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// Version is set at build time with -ldflags "-X ...cli.Version=...".
var Version = "dev"

// usageError marks a mistake in how a command was called.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef reports a wrong call; the message should name the fix.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitError carries a chosen exit code (for example shutdown's "some
// teammates did not answer") with its message.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// Main runs paneteam with args (args[0] is the program name) and returns
// the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	app := newApp(env, args)
	// urfave/cli reports an unknown command (or help topic) through this
	// callback and then returns nil: remembered here, it fails the run, so
	// a script with a typo ("paneteam sned") does not see success.
	var unknown string
	app.CommandNotFound = func(_ *ucli.Context, name string) { unknown = name }
	err := app.RunContext(ctx, intersperse(app, args))
	if err == nil && unknown != "" {
		err = usagef("no command %q", unknown)
	}
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "paneteam: %v\n", err)
	var u usageError
	var e exitError
	switch {
	case errors.As(err, &u):
		fmt.Fprintln(env.Stderr, "run 'paneteam help' or 'paneteam COMMAND --help' for usage")
		return ExitUsage
	case errors.As(err, &e):
		return e.code
	}
	return ExitFailure
}

// newApp builds the app for a run with args: only the command args name
// (see commandsFor).
func newApp(env Env, args []string) *ucli.App {
	app := &ucli.App{
		Name:                 "paneteam",
		Usage:                "run teams of AI coding agents in terminal panes",
		Version:              Version,
		Description:          appDescription,
		Reader:               env.Stdin,
		Writer:               env.Stdout,
		ErrWriter:            env.Stderr,
		EnableBashCompletion: true,
		Flags:                globalFlags(),
		Commands:             commandsFor(env, args),
		// paneteam, not urfave, decides how errors print and the exit code.
		ExitErrHandler: func(*ucli.Context, error) {},
		OnUsageError: func(_ *ucli.Context, err error, _ bool) error {
			return usageError{err}
		},
		// Set, so that urfave/cli does not stat the binary at every start
		// to fill it in; help does not show it.
		Compiled: time.Unix(0, 0),
	}
	bindEnv(env, app)
	return app
}

const appDescription = `paneteam reads and writes the same files as Claude Code's agent teams
(a team config.json, one JSON inbox per agent, one JSON file per task, under
~/.claude or $CLAUDE_CONFIG_DIR), so teams made by either can be driven by the
other, and it lays teammates out in tmux panes, iTerm2 splits, or
pty-hosted processes when neither is there.

Start with 'paneteam demo' to watch a team being created, spawned, talking
and shut down, in a temporary folder.`
