package cli

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/agents/router"
	"github.com/paneteam/paneteam/internal/core/teammate"
)

// RouterCommand is the hidden command the teammate router's link runs
// (cmd/paneteam turns "paneteam-teammate ARGS" into "paneteam
// claude-teammate LINK ARGS").
const RouterCommand = "claude-teammate"

// teammateClaudeCommand is the program of every pane teammate Claude
// Code's lead starts under 'paneteam claude'; never run by people.
func teammateClaudeCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:            RouterCommand,
		Usage:           "(internal) start a teammate Claude Code's lead asked for: an agent CLI by its type, else Claude",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readClaudeTeammateOptions(c)
			if err != nil {
				return err
			}
			return runClaudeTeammate(ctx, env, o)
		},
	}
}

type claudeTeammateOptions struct {
	Link string   // the router's link, as Claude Code ran it
	Args []string // Claude Code's teammate flags
}

func readClaudeTeammateOptions(c *ucli.Command) (claudeTeammateOptions, error) {
	args := c.Args().Slice()
	if len(args) == 0 {
		return claudeTeammateOptions{}, usagef("%s is run by Claude Code's lead through paneteam's router: start 'paneteam claude' instead", RouterCommand)
	}
	return claudeTeammateOptions{Link: args[0], Args: args[1:]}, nil
}

// runClaudeTeammate runs what the router decided (router.Route): an
// agent CLI under paneteam's teammate loop, or Claude, exec'd, or kept
// as a child to be stopped when a budget holds it.
func runClaudeTeammate(ctx context.Context, env Env, o claudeTeammateOptions) error {
	s, err := router.Route(ctx, router.Pane{Link: o.Link, Args: o.Args, Vars: env.Vars,
		Warn: func(format string, args ...any) { warnf(env, format, args...) }})
	var refused *router.NotStartedError
	if errors.As(err, &refused) {
		return exitError{code: ExitFailure, err: err}
	}
	if err != nil {
		return err
	}
	env.Vars = s.Vars
	if a := s.Agent; a != nil {
		// The loop obeys, and the MCP server shows as verified, only what
		// the lead signed with the key Claude gave this teammate.
		tc := teammate.Config{Team: a.Team, Name: a.Name, Log: env.Stderr, LeadKey: a.LeadVerifyKey}
		return runAgentTeammate(ctx, env, tc, nil, agentTeammateOptions{
			Agent: a.Profile, Prompt: a.Prompt, Model: a.Plan.Model, PermissionMode: a.Plan.PermissionMode, Effort: a.Plan.Effort, Deny: a.Plan.Deny,
			LeadVerifyKey: a.LeadVerifyKey, Budget: a.Budget,
		})
	}
	c := s.Claude
	if c.Team != nil && hasBudget(env, *c.Team, c.Budget) {
		// Held to a budget, the router stays as Claude's parent to stop
		// it; it cannot ask first: only Claude's lead speaks as the lead.
		return runGuarded(ctx, env, *c.Team, c.Name, c.Budget, c.Argv, false)
	}
	if err := syscall.Exec(c.Argv[0], c.Argv, env.Environ()); err != nil {
		return fmt.Errorf("start %s: %w", c.Argv[0], err)
	}
	return nil
}
