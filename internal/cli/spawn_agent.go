package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/spawn"
)

// agentSpawnFlag is spawn-pane's --agent.
func agentSpawnFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "agent", Usage: "start an agent CLI as a full teammate: codex, gemini, opencode " +
		"or a profile of yours ('paneteam agents'), with the team's MCP tools, its idle from its own turn-end hook, " +
		"--prompt as its first prompt, --model and --permission-mode mapped to its flags"}
}

// agentSpawn makes r start the agent CLI --agent names, through its
// profile ('paneteam teammate --agent' in the pane). The first prompt is
// the CLI's own first prompt, not an inbox message.
func agentSpawn(env Env, r spawn.Request, o spawnPaneOptions) (spawn.Request, error) {
	if len(o.Command) > 0 || o.Claude {
		return r, usagef("--agent starts the CLI its profile names: give no COMMAND and no --claude")
	}
	p, err := profile.Find(o.Agent, env.Getenv)
	if err != nil {
		return r, usageError{err}
	}
	perm := ""
	if o.PermissionModeSet {
		perm = o.PermissionMode
	}
	if perm != "" {
		if _, ok := p.Permission[perm]; !ok {
			return r, usagef("--permission-mode %s has no equivalent for %s: use one of %s", perm, p.Title, strings.Join(p.Modes(), ", "))
		}
	}
	r.Program = agentrun.Spawner{Profile: p, Paneteam: env.Exe, Prompt: r.Member.Prompt, Model: r.Member.Model, PermissionMode: perm}
	r.Member.Prompt = ""
	r.Member.PlanModeRequired = nil
	if r.Member.AgentType == "" {
		r.Member.AgentType = p.Name
	}
	return r, nil
}
