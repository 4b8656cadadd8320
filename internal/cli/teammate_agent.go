package cli

import (
	"context"
	"fmt"
	"os"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/agents/launch"
	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/agents/turnend"
	"github.com/paneteam/paneteam/internal/core/teammate"
)

// agentTeammateFlags are teammate's flags for an agent CLI (--agent).
func agentTeammateFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "agent", Usage: "run the agent CLI this profile describes (codex, gemini, opencode; see 'paneteam agents') with the team's MCP tools and its turn-end hook"},
		&ucli.StringFlag{Name: "prompt", Usage: "with --agent: the first prompt"},
		&ucli.StringFlag{Name: "model", Usage: "with --agent: the model"},
		&ucli.StringFlag{Name: "permission-mode", Usage: "with --agent: " + fmt.Sprint(permissionModes) + ", mapped to the CLI's own flags"},
	}
}

// runAgentTeammate prepares the agent CLI's run from its profile and
// runs it under a pseudo-terminal, following its turns through its hook
// (teammate.Turns): messages are announced between turns only, as a fixed
// notice; a shutdown types the CLI's own quit before any signal.
func runAgentTeammate(ctx context.Context, c *ucli.Command, env Env, tc teammate.Config, argv []string) error {
	p, err := profile.Find(c.String("agent"), env.Getenv)
	if err != nil {
		return usageError{err}
	}
	if len(argv) > 0 {
		return usagef("--agent builds the command line from the %s profile: give no COMMAND", p.Name)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the current folder: %w", err)
	}
	prog, err := agentProgram(p, env)
	if err != nil {
		return err
	}
	l, err := launch.Prepare(launch.Request{
		Profile: p, Team: tc.Team, Agent: tc.Name, Cwd: cwd, Paneteam: env.Exe,
		Prompt: c.String("prompt"), Model: c.String("model"), PermissionMode: c.String("permission-mode"), Getenv: env.Getenv,
	})
	if err != nil {
		return err
	}
	l.Argv[0] = prog
	turns := launch.TurnFile(tc.Team, tc.Name)
	vars := map[string]string{}
	for k, v := range env.Vars {
		vars[k] = v
	}
	for _, kv := range append(l.Env, turnend.TurnFileVar+"="+turns) {
		k, v, _ := cutEq(kv)
		vars[k] = v
	}
	env.Vars = vars
	if p.IdleHook {
		if tc.Turns, err = launch.HookTurns(ctx, tc, turns); err != nil {
			return err
		}
	}
	return runWrappedAs(ctx, env, tc, l.Argv, func(prog *teammate.Program) teammate.Agent {
		prog.EnterDelay = launch.EnterDelay
		return launch.Agent(prog, p.Quit, tc.Turns == nil)
	})
}

func cutEq(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
