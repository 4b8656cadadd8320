package backend

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/iterm2"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
)

// Auto asks Choose to decide from the environment.
const Auto = "auto"

// Environment variables that steer the choice.
const (
	// EnvBackend names the backend, like --backend.
	EnvBackend = "PANETEAM_BACKEND"
	// EnvPreferTmux=1 favours tmux over iTerm2 splits inside iTerm2.
	EnvPreferTmux = "PANETEAM_PREFER_TMUX"
)

// Decision is the backend Choose settles on and why.
type Decision struct {
	Backend string `json:"backend"`
	// Reason says in a few words why this backend.
	Reason string `json:"reason"`
	// Notes announce each fallback taken, with its reason and fix;
	// Choose passes them to Env.Warn.
	Notes []string `json:"notes,omitempty"`
}

// Choose returns the backend to start new teammates with. requested is
// "auto" (or empty: then PANETEAM_BACKEND) or a backend name; an explicit
// name never falls back. Every fallback is announced through env.Warn.
// After spawning, record where the teammate went with Record.
func Choose(env Env, cfg *team.Config, requested string) (Backend, error) {
	d, err := Decide(env, cfg, requested)
	if err != nil {
		return nil, err
	}
	for _, n := range d.Notes {
		env.warn("%s", n)
	}
	return use(env, cfg, d.Backend)
}

// Decide makes Choose's decision, once, from the environment captured at
// start (docs/PROTOCOL.md §13, "Backend choice"): inside tmux -> tmux; else in
// iTerm2 with a working it2 -> iterm2; else in kitty, WezTerm or Zellij
// whose driver's probe answers -> that terminal's panes; else tmux
// installed -> a private tmux server; else in-process. It runs 'it2
// session list' to prove it2 works (it2 --version succeeds even with the
// API off), and the terminal's probe (kitty @ ls, wezterm cli list,
// zellij action query-tab-names) likewise.
func Decide(env Env, cfg *team.Config, requested string) (Decision, error) {
	if requested == "" {
		requested = env.Getenv(EnvBackend)
	}
	if requested != "" && requested != Auto {
		return decideExplicit(env, requested)
	}
	// What earlier spawns of the team used (cfg.Paneteam.Backend) plays no
	// part: a --backend given for one teammate, or a fallback forced by
	// the environment of one call, would otherwise decide every later
	// teammate's place without anyone asking. A default the user wants
	// kept is PANETEAM_BACKEND, read above on every call.
	if env.Getenv("TMUX") != "" {
		return Decision{Backend: team.BackendTmux, Reason: "inside tmux ($TMUX is set)"}, nil
	}
	_, tmuxErr := env.Find("tmux")
	var notes []string
	if InITerm2(env) {
		if env.Getenv(EnvPreferTmux) == "1" {
			if tmuxErr == nil {
				return Decision{Backend: team.BackendTmux, Reason: "inside iTerm2 with " + EnvPreferTmux + "=1: a private tmux server"}, nil
			}
			notes = append(notes, EnvPreferTmux+"=1 but tmux is not installed; using iTerm2 splits instead")
		}
		err := ProbeITerm2(env)
		if err == nil {
			return Decision{Backend: team.BackendITerm2, Reason: "inside iTerm2 with a working it2", Notes: notes}, nil
		}
		if tmuxErr == nil {
			notes = append(notes, fmt.Sprintf("iTerm2 splits are unavailable: %v. Teammates go to a private tmux server instead (see them with 'paneteam attach')", err))
		} else {
			notes = append(notes, fmt.Sprintf("iTerm2 splits are unavailable: %v. tmux is not installed either, so teammates run in-process (see them with 'paneteam logs' and 'paneteam attach')", err))
		}
	}
	if name := native.Detect(env.Getenv); IsNative(name) {
		err := ProbeNative(env, name)
		if err == nil {
			return Decision{Backend: name, Reason: "inside " + name + ", which paneteam can drive", Notes: notes}, nil
		}
		if tmuxErr == nil {
			notes = append(notes, fmt.Sprintf("%s panes are unavailable: %v. Teammates go to a private tmux server instead (see them with 'paneteam attach')", name, err))
		} else {
			notes = append(notes, fmt.Sprintf("%s panes are unavailable: %v. tmux is not installed either, so teammates run in-process (see them with 'paneteam logs' and 'paneteam attach')", name, err))
		}
	}
	if tmuxErr == nil {
		return Decision{Backend: team.BackendTmux, Reason: "tmux is installed: a private tmux server", Notes: notes}, nil
	}
	if len(notes) == 0 {
		notes = append(notes, "not inside tmux, iTerm2, kitty, WezTerm, Zellij or Ghostty and no tmux on PATH: teammates run in-process "+
			"(see them with 'paneteam logs' and 'paneteam attach'); install tmux to see them in panes")
	}
	return Decision{Backend: team.BackendInProcess, Reason: "no tmux and no usable iTerm2", Notes: notes}, nil
}

// decideExplicit honours --backend / PANETEAM_BACKEND: it fails with the
// reason and fix rather than falling back.
func decideExplicit(env Env, name string) (Decision, error) {
	if _, ok := registry[name]; !ok && name != team.BackendTmux && name != team.BackendInProcess {
		return Decision{}, fmt.Errorf("unknown backend %q: use auto, tmux, iterm2, kitty, wezterm, zellij, ghostty or in-process", name)
	}
	if IsNative(name) {
		if err := ProbeNative(env, name); err != nil {
			return Decision{}, fmt.Errorf("backend %s was asked for but cannot be used: %w", name, err)
		}
	}
	if name == team.BackendITerm2 {
		if err := ProbeITerm2(env); err != nil {
			return Decision{}, fmt.Errorf("backend iterm2 was asked for but cannot be used: %w", err)
		}
	}
	return Decision{Backend: name, Reason: "asked for (--backend or " + EnvBackend + ")"}, nil
}

// InITerm2 reports whether paneteam started inside iTerm2.
func InITerm2(env Env) bool {
	return env.Getenv("TERM_PROGRAM") == "iTerm.app" || env.Getenv("ITERM_SESSION_ID") != ""
}

// ProbeITerm2 checks that it2 can drive iTerm2 by listing its sessions;
// the error names the fix.
func ProbeITerm2(env Env) error {
	c, err := it2Client(env)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), it2Timeout)
	defer cancel()
	_, err = c.Sessions(ctx)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, iterm2.ErrAPIUnavailable):
		return fmt.Errorf("%w: %s", err, iterm2.FixAPI)
	case errors.Is(err, iterm2.ErrNotInstalled):
		return fmt.Errorf("%w: %s", err, iterm2.FixInstall)
	}
	return fmt.Errorf("%w (check that iTerm2 is running and allows it2 to connect: %s)", err, iterm2.FixAPI)
}

// Record notes on cfg the backend of the team's latest teammate, for
// 'status', and what later spawns there reuse: an iTerm2 team keeps
// splitting from its lead's session, a tmux team keeps its server. It
// does not choose later teammates' backend (Decide). Call it after a
// Spawn, inside the config update that adds the member.
func Record(cfg *team.Config, b Backend) {
	if cfg.Paneteam == nil {
		cfg.Paneteam = &team.TeamMeta{}
	}
	cfg.Paneteam.Backend = b.Name()
	if r, ok := b.(TeamRecorder); ok {
		r.RecordTeam(cfg.Paneteam)
	}
}

// TeamLayout is the layout kept for the team's window (KeepLayout): what
// spawns, shows and the re-layouts after kill-pane and hide use unless
// told otherwise. A team that never chose one, or whose kept layout is not
// valid, gets the default (the zero Policy).
func TeamLayout(cfg *team.Config) layout.Policy {
	if cfg == nil || cfg.Paneteam == nil {
		return layout.Policy{}
	}
	pol := layout.Policy{Kind: layout.Kind(cfg.Paneteam.Layout), LeadPercent: cfg.Paneteam.LeadPercent}
	if pol.Validate() != nil {
		return layout.Policy{}
	}
	return pol
}

// KeepLayout records pol as the team's layout on cfg.
func KeepLayout(cfg *team.Config, pol layout.Policy) {
	if cfg.Paneteam == nil {
		cfg.Paneteam = &team.TeamMeta{}
	}
	cfg.Paneteam.Layout, cfg.Paneteam.LeadPercent = string(pol.Kind), pol.LeadPercent
}

// TeamRecorder is a backend with team-wide facts to keep in config.json
// (the lead's pane or session, the tmux server).
type TeamRecorder interface{ RecordTeam(*team.TeamMeta) }

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

// Find finds a program on the PATH of the world e describes (its
// Getenv's, which is a lead's for claudestart), unless e says otherwise.
func (e Env) Find(name string) (string, error) {
	if e.LookPath != nil {
		return e.LookPath(name)
	}
	getenv := e.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return program.Find(name, getenv("PATH"))
}
