package cli

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"

	"github.com/paneteam/paneteam/internal/core/factory"
	"github.com/paneteam/paneteam/internal/sys/envlist"
)

// Env is everything a command may learn from the world it started in,
// captured once at start: later changes to the process environment (or a
// library that overwrites TMUX) do not change a decision already made.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Vars is the environment as it was at start.
	Vars map[string]string
	// StdoutTTY and StdinTTY say whether those are terminals.
	StdoutTTY bool
	StdinTTY  bool
	// Exe is the path of the paneteam binary, for commands that start
	// paneteam again (teammates, hosts).
	Exe string
	// Args is the command line Main was given (set by Main), for a
	// command that hands itself to another program whole (dashboard).
	Args []string
	// shared is what the run's commands share (internal/core/factory),
	// made by Main; see Env.factory.
	shared *factory.Factory
}

// Getenv returns a captured variable.
func (e Env) Getenv(k string) string { return e.Vars[k] }

// Color reports whether output to people may use colour.
func (e Env) Color() bool {
	_, noColor := e.Vars["NO_COLOR"]
	return e.StdoutTTY && !noColor && e.Vars["TERM"] != "dumb"
}

// SystemEnv captures the real process environment.
func SystemEnv() Env {
	vars := envlist.Map(os.Environ())
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return Env{
		Stdin:     os.Stdin,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		Vars:      vars,
		StdoutTTY: isatty.IsTerminal(os.Stdout.Fd()) || isatty.IsCygwinTerminal(os.Stdout.Fd()),
		StdinTTY:  isatty.IsTerminal(os.Stdin.Fd()),
		Exe:       exe,
	}
}

// Environ renders Vars back as KEY=VALUE pairs for a child process.
func (e Env) Environ() []string {
	out := make([]string, 0, len(e.Vars))
	for k, v := range e.Vars {
		out = append(out, k+"="+v)
	}
	return out
}
