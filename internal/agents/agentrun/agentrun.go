// Package agentrun is one run of an agent CLI as a teammate, prepared from
// its profile: the run's own folder under the team's, the files in it,
// the command line and its environment; then how the running CLI is
// driven (its turns from its hook, a notice instead of a message, its own
// quit before a hang-up). spawn-pane checks a run before it makes a pane;
// 'paneteam teammate --agent' prepares it in the pane and runs it. (A
// "launch" in paneteam is only ever the record of a teammate started:
// internal/core/launches.)
package agentrun

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/panedialog"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/team"
)

// Request is one teammate's launch of an agent CLI.
type Request struct {
	Profile        *profile.Profile
	Team           team.Team
	Agent          string
	Cwd            string
	Paneteam       string // the paneteam executable
	Prompt         string
	Model          string
	PermissionMode string
	// Effort and Deny carry Claude Code's --effort and deny rules (a
	// teammate Claude's lead started through paneteam's router).
	Effort string
	Deny   []string
	// LeadVerifyKey is the teammate's --lead-verify-key ("" for none),
	// handed to its MCP server ({{leadKey}}).
	LeadVerifyKey string
	// Session is the CLI's own session to continue (its profile's
	// Resume), as its hook recorded it (ReadSession); "" starts anew.
	Session string
	Getenv  func(string) string
}

// Home is the run's own folder: inside the team's folder, so it goes
// with the team ('paneteam cleanup'), and never the person's config.
func Home(t team.Team, agent string) string { return panedialog.RunDir(t, agent) }

// TurnFile is where the CLI's hook marks each turn's end.
func TurnFile(t team.Team, agent string) string { return filepath.Join(Home(t, agent), "turns") }

// Plan fills the profile in without writing anything: what spawn-pane
// checks before it makes a pane.
func Plan(r Request) (profile.RunPlan, error) {
	if r.Profile == nil {
		return profile.RunPlan{}, fmt.Errorf("no agent profile")
	}
	return profile.Build(r.Profile, profile.Options{
		Team: r.Team.Name, Agent: r.Agent, Root: r.Team.Root, Cwd: r.Cwd, Home: Home(r.Team, r.Agent),
		Paneteam: r.Paneteam, Prompt: r.Prompt, Model: r.Model, PermissionMode: r.PermissionMode, Effort: r.Effort, Deny: r.Deny,
		LeadVerifyKey: r.LeadVerifyKey, Getenv: r.Getenv, Session: r.Session,
	})
}

// Prepare plans the launch, writes the run's files, starts a fresh turn
// file and clears a mark of asking a previous run left (and, starting a
// new session, the session it ran).
func Prepare(r Request) (profile.RunPlan, error) {
	l, err := Plan(r)
	if err != nil {
		return l, err
	}
	// The team folder may be a link (a remote host's leads to its mount);
	// agents/ and the run's folder below it may not: teammates write the
	// team folder.
	if err := os.MkdirAll(r.Team.Dir(), 0o700); err != nil {
		return l, fmt.Errorf("prepare %s's folder: %w", r.Agent, err)
	}
	rel, err := filepath.Rel(r.Team.Dir(), Home(r.Team, r.Agent))
	if err != nil {
		return l, fmt.Errorf("prepare %s's folder: %w", r.Agent, err)
	}
	if err := safefs.MkdirAll(r.Team.Dir(), rel, 0o700); err != nil {
		return l, fmt.Errorf("prepare %s's folder: %w", r.Agent, err)
	}
	if err := l.Write(); err != nil {
		return l, err
	}
	if err := panedialog.Clear(r.Team, r.Agent); err != nil {
		return l, err
	}
	if r.Session == "" {
		if err := clearSession(r.Team, r.Agent); err != nil {
			return l, err
		}
	}
	f, err := safefs.OpenFile(TurnFile(r.Team, r.Agent), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return l, fmt.Errorf("prepare %s's turn file: %w", r.Agent, err)
	}
	return l, f.Close()
}
