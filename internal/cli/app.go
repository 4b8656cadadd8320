// Package cli is paneteam's command line: one file per command, errors and
// exit codes decided here in one place.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/factory"
	"github.com/paneteam/paneteam/internal/term/visible"
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
	env.Args = args
	if isVersion(args) {
		if err := writeVersion(env.Stdout, Version); err != nil {
			fmt.Fprintf(env.Stderr, "paneteam: %v\n", err)
			return ExitFailure
		}
		return ExitOK
	}
	env.shared = factory.New(env.Getenv)
	if isRootHelp(args) {
		if ok, err := writeRootHelp(env.Stdout, Version); ok {
			if err != nil {
				fmt.Fprintf(env.Stderr, "paneteam: %v\n", err)
				return ExitFailure
			}
			return ExitOK
		}
	}
	return run(ctx, args, env)
}

// run is Main without the rendered root help: urfave/cli decides.
func run(ctx context.Context, args []string, env Env) int {
	app := newApp(env, args)
	// urfave/cli reports an unknown command (or help topic) through this
	// callback and then returns nil: remembered here, it fails the run, so
	// a script with a typo ("paneteam sned") does not see success.
	// Every command with subcommands ("paneteam task sned") reports its
	// own, which would otherwise be an error with exit code 3.
	var unknown string
	_ = app.Walk(func(c *ucli.Command) error {
		c.CommandNotFound = func(_ context.Context, _ *ucli.Command, name string) { unknown = name }
		return nil
	})
	if v2Completion(args) && env.Getenv("_CLI_ZSH_AUTOCOMPLETE_HACK") != "1" {
		app.Writer = &namesOnly{w: app.Writer}
	}
	err := app.Run(ctx, completionArgs(args))
	if err == nil && unknown != "" {
		err = usagef("no command %q", unknown)
	}
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "paneteam: %s\n", errorText(err))
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

// newApp builds the root command for a run with args: only the command
// args name (see commandsFor).
func newApp(env Env, args []string) *ucli.Command {
	one := 1
	app := &ucli.Command{
		Name:                  "paneteam",
		Usage:                 "run teams of AI coding agents in terminal panes",
		Version:               Version,
		Description:           appDescription,
		Reader:                env.Stdin,
		Writer:                env.Stdout,
		ErrWriter:             env.Stderr,
		EnableShellCompletion: true,
		Flags:                 globalFlags(),
		Commands:              commandsFor(env, args),
		// A first argument that is no command ends the top level's flags,
		// so that "paneteam sned --to x" says there is no command sned
		// rather than that --to is no flag.
		StopOnNthArg: &one,
		// paneteam, not urfave, decides how errors print and the exit code.
		ExitErrHandler: func(context.Context, *ucli.Command, error) {},
		OnUsageError:   onUsageError,
	}
	bindEnv(env, app)
	_ = app.Walk(func(c *ucli.Command) error {
		// A bad flag on any command is a usage error (exit 2), like the app's.
		if c.OnUsageError == nil {
			c.OnUsageError = onUsageError
		}
		// A command without subcommands takes "help" and "h" as the
		// arguments they are: `send --to bob help` sends "help" instead
		// of printing send's help and exiting 0 with nothing sent.
		// `paneteam help send` and `send --help` still show it.
		if c != app && len(c.Commands) == 0 {
			c.HideHelpCommand = true
		}
		return nil
	})
	return app
}

// onUsageError makes a bad flag or argument, on any command, a usage
// error (exit 2) printed by Main, instead of urfave/cli's own message
// followed by the whole help text.
func onUsageError(_ context.Context, _ *ucli.Command, err error, _ bool) error {
	return usageError{err}
}

// v2Completion reports a completion request from the scripts written for
// urfave/cli v2 (paneteam's command line before v3), which people may have
// installed: they ask with --generate-bash-completion, which v3 calls
// --generate-shell-completion, and v2's bash script wants bare names,
// where v3 prints "name:description" (v2 did so only for its zsh script,
// which sets _CLI_ZSH_AUTOCOMPLETE_HACK=1).
func v2Completion(args []string) bool {
	return len(args) > 1 && args[len(args)-1] == "--generate-bash-completion"
}

// completionArgs turns v2's completion flag into v3's. The flag is
// replaced in place: for the top level (completing a command name)
// urfave/cli reads os.Args, whose array args is in a real run.
func completionArgs(args []string) []string {
	if v2Completion(args) {
		args[len(args)-1] = "--generate-shell-completion"
	}
	return args
}

// namesOnly writes each "name:description" line of a completion as
// "name".
type namesOnly struct {
	w    io.Writer
	skip bool // in a line's description
}

func (n *namesOnly) Write(p []byte) (int, error) {
	var out []byte
	for _, b := range p {
		switch {
		case b == '\n':
			n.skip = false
			out = append(out, b)
		case n.skip:
		case b == ':':
			n.skip = true
		default:
			out = append(out, b)
		}
	}
	if _, err := n.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

const appDescription = `paneteam reads and writes the same files as Claude Code's agent teams
(a team config.json, one JSON inbox per agent, one JSON file per task, under
~/.claude or $CLAUDE_CONFIG_DIR), so teams made by either can be driven by the
other, and it lays teammates out in tmux panes, iTerm2 splits, or
pty-hosted processes when neither is there.

Start with 'paneteam demo' to watch a team being created, spawned, talking
and shut down, in a temporary folder.`

// errorText is an error as the person reads it. An error may quote what it
// found in a team's folder (a name, a line of a file), so each of its
// lines is shown by the rule for someone else's text (visible.Block):
// nothing in it reaches the terminal as a control character. A plain
// message reads as it always did.
func errorText(err error) string {
	return visible.Block(cliWords(err))
}
