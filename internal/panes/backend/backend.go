// Package backend is where teammates' panes come from: tmux panes, iTerm2
// split panes, or processes hosted under a pseudo-terminal when neither is
// there. Each backend implements Backend; Choose picks one from the
// environment captured at start.
package backend

import (
	"context"
	"fmt"
	"time"

	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
)

// Spec describes a teammate to start.
type Spec struct {
	Team   team.Team
	Config *team.Config // the team as it was just before the member was added
	Member team.Member  // name, colour, cwd: already unique and assigned
	// Argv is the command and its arguments, run as is (no shell).
	Argv []string
	// Env is added to the command's environment (KEY=VALUE).
	Env []string
	// Layout is where a pane-based backend puts the pane (zero: its
	// default policy).
	Layout layout.Policy
	// StartupCheck is how long Spawn watches the command after starting
	// it, to report a command that fails at once (0: check only once).
	StartupCheck time.Duration
}

// Pane is where a teammate runs, as recorded in config.json.
type Pane struct {
	ID      string // tmuxPaneId: tmux "%N", iTerm2 session UUID, or "in-process"
	Backend string // team.BackendTmux, team.BackendITerm2, team.BackendInProcess
	// Meta is paneteam's own record (host pid, tmux socket), stored on the
	// member.
	Meta *team.MemberMeta
}

// Backend starts, stops and checks teammates' panes.
type Backend interface {
	// Name is the backendType recorded for members it starts.
	Name() string
	// Spawn starts the teammate and returns once its command runs (or has
	// failed: then the error says why, and the pane stays visible where
	// the backend can keep it).
	Spawn(ctx context.Context, s Spec) (Pane, error)
	// Kill ends the member's pane. A pane that is already gone is success;
	// a pane paneteam cannot prove it created is left alone with an error.
	Kill(ctx context.Context, cfg *team.Config, m *team.Member) error
	// Alive reports whether the member's pane (or host) still exists.
	Alive(ctx context.Context, cfg *team.Config, m *team.Member) (bool, error)
}

// Discarder is a backend that can take back what its last Spawn started
// when the spawn then fails (the member could not be recorded), leaving
// nothing of it running: a private tmux server it started included.
type Discarder interface {
	Discard(ctx context.Context, p Pane, m team.Member) error
}

// Discard ends the teammate a Spawn started as p for m, after the spawn
// failed: with the backend's Discard when it has one, else its Kill.
// It runs even when ctx has ended (an interrupted spawn).
func Discard(ctx context.Context, b Backend, cfg *team.Config, m team.Member, p Pane) error {
	ctx = context.WithoutCancel(ctx)
	if d, ok := b.(Discarder); ok {
		return d.Discard(ctx, p, m)
	}
	m.TmuxPaneID, m.BackendType, m.Paneteam = p.ID, p.Backend, p.Meta
	return b.Kill(ctx, cfg, &m)
}

// Env is what backends may learn about the world, captured at start.
type Env struct {
	Getenv func(string) string
	// LookPath finds a program (nil: program.Find on Getenv's PATH);
	// tests control what is "installed".
	LookPath func(string) (string, error)
	// Exe is the paneteam binary, for backends that start paneteam again.
	Exe string
	// Warn receives announcements such as a fallback and its reason.
	Warn func(format string, args ...any)
}

// ForMember returns the backend that started m, from its backendType.
func ForMember(env Env, cfg *team.Config, m *team.Member) (Backend, error) {
	b, ok := registry[m.BackendType]
	if !ok {
		return nil, fmt.Errorf("member %s has backend %q, which paneteam does not drive", m.Name, m.BackendType)
	}
	return b(env, cfg)
}

// registry maps backendType to a constructor; each backend's file adds
// itself.
var registry = map[string]func(Env, *team.Config) (Backend, error){}
