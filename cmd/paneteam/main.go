// Command paneteam runs teams of AI coding agents in terminal panes, over
// the same team files Claude Code's agent teams use. Run under the name
// tmux (a link that 'paneteam claude' puts first on Claude Code's PATH),
// it is the tmux Claude Code's lead drives its teammates' panes with
// (internal/panes/shim). Run under the name paneteam-teammate (a link
// 'paneteam claude' names as Claude Code's teammate program), it starts
// the teammate Claude's lead asked for (internal/agents/router).
package main

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/agents/router"
	"github.com/paneteam/paneteam/internal/cli"
	"github.com/paneteam/paneteam/internal/panes/shim"
)

func main() {
	if filepath.Base(os.Args[0]) == "tmux" {
		// Decided before anything else: most calls are passed to the
		// real tmux, and Claude Code waits for each.
		os.Exit(shim.Main(os.Args))
	}
	args := os.Args
	if filepath.Base(args[0]) == router.LinkName {
		// Claude Code's lead starting a pane teammate through
		// 'paneteam claude' (internal/agents/router).
		args = append([]string{"paneteam", cli.RouterCommand}, args...)
	}
	ctx := &signalContext{}
	code := cli.Main(ctx, args, cli.SystemEnv())
	ctx.stop()
	os.Exit(code)
}

// signalContext is cancelled by SIGINT, SIGTERM or SIGHUP, but installs the
// handler only when something first asks for Done: a command that waits
// (a lock, a child process, a stream, a timeout derived from it) gets a
// clean stop, while one that never waits, such as --version or --help,
// does not pay for os/signal's watcher (a goroutine blocked in the
// runtime, and a thread to run it), about 0.3 ms of CPU at each start
// (bench/startup). Until then a signal ends the process as it would any
// program: team locks are taken with ctx (which installs the handler
// first), and files are written to a temporary name and renamed.
type signalContext struct {
	once  sync.Once
	inner context.Context
	stopF context.CancelFunc
}

func (s *signalContext) install() {
	s.once.Do(func() {
		// SIGHUP too: a pane closed under a teammate wrapper hangs it
		// up, and the wrapper must end its program (some agent CLIs
		// ignore the hang-up their own terminal gives them).
		s.inner, s.stopF = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	})
}

func (s *signalContext) Done() <-chan struct{} {
	s.install()
	if s.inner == nil {
		return nil // asked after stop
	}
	return s.inner.Done()
}

// Err installs the handler too: whoever asks cares about a stop.
func (s *signalContext) Err() error {
	s.install()
	if s.inner == nil {
		return nil
	}
	return s.inner.Err()
}

func (s *signalContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (s *signalContext) Value(any) any               { return nil }

// stop releases the handler if one was installed; none is afterwards.
func (s *signalContext) stop() {
	s.once.Do(func() {}) // orders this after an install, or prevents one
	if s.stopF != nil {
		s.stopF()
	}
}
