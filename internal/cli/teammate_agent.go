package cli

import (
	"context"
	"fmt"
	"maps"
	"os"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/factory"
	"github.com/paneteam/paneteam/internal/core/teammate"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/mailbox"
)

// agentTeammateFlags are teammate's flags for an agent CLI (--agent).
func agentTeammateFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "agent", Usage: "run the agent CLI this profile describes (codex, gemini, opencode; see 'paneteam agents') with the team's MCP tools and its turn-end hook"},
		&ucli.StringFlag{Name: "prompt", Usage: "with --agent: the first prompt"},
		&ucli.StringFlag{Name: "model", Usage: "with --agent: the model"},
		&ucli.StringFlag{Name: "permission-mode", Usage: "with --agent: " + fmt.Sprint(mailbox.PermissionModes) + ", mapped to the CLI's own flags"},
		&ucli.StringFlag{Name: "cli-session", Usage: "with --agent: continue this session of the CLI's own (its profile's \"resume\"), " +
			"as 'paneteam resume' does with the session its hook recorded; the first prompt then says it was started again"},
		&ucli.StringFlag{Name: "lead-verify-key", Usage: "the lead's key (<ms>.<key>, as Claude Code's --lead-verify-key): a shutdown in the lead's name " +
			"is obeyed only when the lead signed it, and with --agent the MCP server marks the lead's messages verified or not",
			Sources: ucli.EnvVars(factory.EnvLeadVerifyKey)},
		budgetFlag("with --agent: " + budgetHelp),
	}
}

// agentTeammateOptions are teammate's --agent and the flags that go with it.
type agentTeammateOptions struct {
	Agent, Prompt, Model, PermissionMode string
	// Session is the CLI's own session to continue (--cli-session).
	Session string
	// Effort and Deny come from Claude Code's lead (claude-teammate).
	Effort string
	Deny   []string
	// LeadVerifyKey goes to the loop (teammate.Config.LeadKey), whatever
	// the teammate runs, and with --agent to its MCP server.
	LeadVerifyKey string
	// Budget is the teammate's own spending limit in dollars (0: none
	// but its team's).
	Budget float64
}

func readAgentTeammateOptions(c *ucli.Command) agentTeammateOptions {
	return agentTeammateOptions{Agent: readFlags(c).String("agent"), Prompt: readFlags(c).String("prompt"), Model: readFlags(c).String("model"),
		PermissionMode: readFlags(c).String("permission-mode"), LeadVerifyKey: readFlags(c).String("lead-verify-key"), Budget: readFlags(c).Float("budget"),
		Session: readFlags(c).String("cli-session")}
}

// checkLeadVerifyKey refuses a malformed --lead-verify-key before
// anything is written with it.
func checkLeadVerifyKey(key string) error {
	if err := factory.CheckVerifyKey(key); err != nil {
		return usagef("--lead-verify-key (or %s): %v", factory.EnvLeadVerifyKey, err)
	}
	return nil
}

// runAgentTeammate prepares the agent CLI's run from its profile and
// runs it under a pseudo-terminal, following its turns through its hook
// (teammate.Turns): messages are announced between turns only, as a fixed
// notice; a shutdown types the CLI's own quit before any signal.
func runAgentTeammate(ctx context.Context, env Env, tc teammate.Config, argv []string, o agentTeammateOptions) error {
	p, err := profile.Find(o.Agent, env.Getenv)
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
	prog, err := p.Locate(env.Getenv("PATH"))
	if err != nil {
		return err
	}
	rt, err := agentrun.NewRuntime(ctx, agentrun.Request{
		Profile: p, Team: tc.Team, Agent: tc.Name, Cwd: cwd, Paneteam: env.Exe,
		Prompt: o.Prompt, Model: o.Model, PermissionMode: o.PermissionMode, Effort: o.Effort, Deny: o.Deny, LeadVerifyKey: o.LeadVerifyKey, Session: o.Session, Getenv: env.Getenv,
	}, tc, prog)
	if err != nil {
		return err
	}
	vars := maps.Clone(env.Vars)
	if vars == nil {
		vars = map[string]string{}
	}
	maps.Copy(vars, envlist.Map(rt.Env))
	env.Vars = vars
	tc.Turns = rt.Turns
	if !hasBudget(env, tc.Team, o.Budget) {
		return runWrappedAs(ctx, env, tc, rt.Argv, rt.Wrap)
	}
	// The budget's watch stops the CLI through the loop, as an approved
	// shutdown does: its own quit typed first, then a signal.
	halt, ended := make(chan string, 1), make(chan struct{})
	tc.Halt = halt
	w, err := budgetWatch(env, tc.Team, tc.Name, o.Budget, func(ctx context.Context, why string) string {
		halt <- why
		select {
		case <-ended:
			if rt.HungUp() {
				return p.Title + " was asked to quit, did not, and was hung up on"
			}
			return p.Title + " was asked to quit, then ended"
		case <-time.After(time.Minute):
			return p.Title + " was asked to quit, and had not ended a minute later"
		}
	})
	if err != nil {
		return err
	}
	return watchBudget(ctx, w, func(ctx context.Context) error {
		defer close(ended)
		return runWrappedAs(ctx, env, tc, rt.Argv, rt.Wrap)
	})
}
