package backend

import (
	"fmt"

	"github.com/paneteam/paneteam/team"
)

// Auto asks Choose to decide from the environment.
const Auto = "auto"

// Choose returns the backend to start new teammates with. requested is
// "auto" (or empty) or a backend name; an explicit name never falls back.
// Decided once from the environment captured at start:
// inside tmux -> tmux; else tmux installed -> a private tmux server; else
// in-process. A team that fell back to in-process stays there.
func Choose(env Env, cfg *team.Config, requested string) (Backend, error) {
	if requested == "" {
		requested = env.Getenv("PANETEAM_BACKEND")
	}
	if requested != "" && requested != Auto {
		mk, ok := registry[requested]
		if !ok {
			return nil, fmt.Errorf("unknown backend %q: use auto, tmux, iterm2 or in-process", requested)
		}
		return mk(env, cfg)
	}
	if cfg != nil && cfg.Paneteam != nil && cfg.Paneteam.Backend == team.BackendInProcess {
		return use(env, cfg, team.BackendInProcess)
	}
	if env.Getenv("TMUX") != "" {
		return use(env, cfg, team.BackendTmux)
	}
	if _, err := env.LookPath("tmux"); err == nil {
		return use(env, cfg, team.BackendTmux)
	}
	env.warn("no tmux on PATH and not inside iTerm2: teammates run in-process " +
		"(see them with 'paneteam logs' and 'paneteam attach'); install tmux to see them in panes")
	return use(env, cfg, team.BackendInProcess)
}

func use(env Env, cfg *team.Config, name string) (Backend, error) {
	mk, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("backend %s is not built into this paneteam", name)
	}
	return mk(env, cfg)
}

func (e Env) warn(format string, args ...any) {
	if e.Warn != nil {
		e.Warn(format, args...)
	}
}
