package router

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paneteam/paneteam/internal/agents/profile"
)

// Plan is how a teammate Claude Code's lead asked for runs as an agent
// CLI: each of the lead's settings carried over as the CLI's own, and
// what the CLI cannot take named.
type Plan struct {
	Profile        *profile.Profile
	PermissionMode string // one of the profile's modes
	Model          string // "" leaves the CLI's default
	Effort         string
	Deny           []string
	// Notes say what was not carried over and why (settings with no
	// meaning for the CLI, a Claude model left out).
	Notes []string
}

// RefusedError is a setting of the lead's the CLI cannot honour: the
// teammate is not started rather than started without it.
type RefusedError struct {
	CLI, Flag, Why string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s cannot start as this teammate: %s (%s)", e.CLI, e.Why, e.Flag)
}

// Map carries t's settings over to p's CLI, or refuses.
func Map(t Teammate, p *profile.Profile) (Plan, error) {
	pl := Plan{Profile: p}
	refuse := func(flag, format string, args ...any) (Plan, error) {
		return Plan{}, &RefusedError{CLI: p.Title, Flag: flag, Why: fmt.Sprintf(format, args...)}
	}
	mode := t.PermissionMode
	switch {
	case t.PlanModeRequired:
		mode = "plan"
	case mode == "":
		mode = "default"
	case mode == "bubble":
		// The lead would take the teammate's permission prompts; a CLI
		// asks in its own pane, which 'paneteam status' shows as
		// needing the person.
		pl.Notes = append(pl.Notes, "permission mode bubble: "+p.Title+" asks for approval in its own pane, not through the lead")
		mode = "default"
	}
	if _, ok := p.Permission[mode]; !ok {
		flag := "--permission-mode " + mode
		if t.PlanModeRequired {
			flag = "--plan-mode-required"
		}
		return refuse(flag, "it has no equivalent of Claude Code's %s mode (it has %s)", mode, strings.Join(p.Modes(), ", "))
	}
	pl.PermissionMode = mode
	if t.Model != "" {
		if slices.Contains(p.Models, t.Model) && len(p.Model) > 0 {
			pl.Model = t.Model
		} else {
			pl.Notes = append(pl.Notes, fmt.Sprintf("model %s is Claude's: %s runs on its own default model", t.Model, p.Title))
		}
	}
	if t.Effort != "" {
		if len(p.Effort) > 0 {
			pl.Effort = t.Effort
		} else {
			pl.Notes = append(pl.Notes, fmt.Sprintf("--effort %s has no meaning for %s: left out", t.Effort, p.Title))
		}
	}
	for _, rule := range t.Deny {
		if _, ok := p.Deny[rule]; !ok {
			return refuse("--disallowed-tools "+rule, "it cannot enforce the lead's deny rule %q; remove the rule, ask for a Claude teammate, "+
				"or map the rule in a profile of your own (\"deny\" in %s.json, 'paneteam agents')", rule, p.Name)
		}
		pl.Deny = append(pl.Deny, rule)
	}
	if len(t.Tools) > 0 {
		return refuse("--tools "+strings.Join(t.Tools, ","), "the lead limits its teammates to the tools %s, and %s's tools cannot be limited that way",
			strings.Join(t.Tools, ", "), p.Title)
	}
	if len(t.Allow) > 0 {
		pl.Notes = append(pl.Notes, fmt.Sprintf("allow rules (%s) are Claude's: %s asks as its permission mode says", strings.Join(t.Allow, ", "), p.Title))
	}
	for _, f := range t.Ignorable {
		pl.Notes = append(pl.Notes, fmt.Sprintf("%s configures Claude Code and has no meaning for %s: left out", f.Name, p.Title))
	}
	return pl, nil
}
