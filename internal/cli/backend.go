package cli

import (
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/panes/backend"
)

// How the commands reach the pane backends: one environment for every
// command, and a quieter one for those that only read state.

// backendEnv is what backends learn of the command's world; their
// announcements (a fallback and its fix) go to stderr.
func backendEnv(env Env) backend.Env {
	return backend.Env{
		Getenv: env.Getenv,
		Exe:    env.Exe,
		Warn:   func(format string, args ...any) { warnf(env, format, args...) },
	}
}

// stateOptions is how every command that shows a team's state takes it:
// panes asked of the backends that started them, announcing nothing.
func stateOptions(env Env) teamwatch.Options {
	bend := statusBackendEnv(env)
	return teamwatch.Options{Backend: &bend}
}

// statusBackendEnv is the backend environment of a read-only command:
// nothing to announce.
func statusBackendEnv(env Env) backend.Env {
	b := backendEnv(env)
	b.Warn = func(string, ...any) {} // status reports; it starts nothing
	return b
}
