package agentrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/team"
)

// Spawner is the spawn.Program of an agent CLI teammate
// ('spawn-pane --agent NAME'): the pane runs 'paneteam teammate --agent
// NAME', which prepares the CLI's run (Prepare) and follows its turns.
// Check fails before anything is written when the CLI is not installed
// or the profile cannot map the permission mode or the model.
type Spawner struct {
	Profile        *profile.Profile
	Paneteam       string // the paneteam executable
	Prompt         string // passed to the CLI as its first prompt
	Model          string
	PermissionMode string
	// Budget, above 0, is the teammate's spending limit in dollars, which
	// its wrapper holds it to; Env is added to its environment.
	Budget float64
	Env    []string
}

// Check finds the CLI on the caller's PATH and fills the profile in once,
// writing nothing.
func (a Spawner) Check(_ context.Context, cwd string, caller post.Caller) error {
	if err := spawn.Preflight(a.Profile.Program, cwd, caller.Env("PATH")); err != nil {
		if a.Profile.Install != "" {
			return fmt.Errorf("%s: %w; to install %s: %s", a.Profile.Name, err, a.Profile.Title, a.Profile.Install)
		}
		return fmt.Errorf("%s: %w", a.Profile.Name, err)
	}
	_, err := profile.Build(a.Profile, profile.Options{Team: "check", Agent: "check", Cwd: cwd,
		Home: filepath.Join(os.TempDir(), "paneteam-check"), Paneteam: a.Paneteam, Prompt: a.Prompt,
		Model: a.Model, PermissionMode: a.PermissionMode, Getenv: caller.Env})
	return err
}

// Prepare is the wrapper's command line.
func (a Spawner) Prepare(_ context.Context, s spawn.Setup) (spawn.Prepared, error) {
	argv := []string{a.Paneteam, "teammate", "--agent", a.Profile.Name}
	for _, f := range [][2]string{{"--prompt", a.Prompt}, {"--model", a.Model}, {"--permission-mode", a.PermissionMode}} {
		if f[1] != "" {
			argv = append(argv, f[0], f[1])
		}
	}
	if a.Budget > 0 {
		argv = append(argv, "--budget", strconv.FormatFloat(a.Budget, 'f', -1, 64))
	}
	return spawn.Prepared{Argv: argv, Env: append(spawn.TeammateEnv(s), a.Env...), CLI: a.Profile.Name, Shutdown: team.ShutdownAsk,
		ConfigDir: Home(s.Team, s.Member.Name)}, nil
}
