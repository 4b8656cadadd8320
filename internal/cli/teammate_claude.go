package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/agents/launch"
	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/agents/router"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/core/teammate"
	"github.com/paneteam/paneteam/internal/protocol/provenance"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
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

func runClaudeTeammate(ctx context.Context, env Env, o claudeTeammateOptions) error {
	rc, err := router.Load(o.Link)
	if err != nil {
		return err
	}
	// Claude gives the pane none of paneteam's variables: the state
	// folder is the one the router's link is in, for every record this
	// teammate's launch writes, whatever the pane inherited.
	env.Vars = withVar(env.Vars, "PANETEAM_STATE_DIR", router.StateDir(o.Link))
	tm, perr := router.ParseClaudeArgs(o.Args)
	if !rc.Routes(tm.AgentType) {
		args := o.Args
		if told := teammateWorktree(ctx, &env, rc, o.Link, tm); told != "" {
			args = append(args, "--append-system-prompt", told)
		}
		return execClaudeTeammate(ctx, env, rc, tm, args)
	}
	if perr != nil {
		return refuseTeammate(ctx, env, tm, tm.AgentType, perr)
	}
	p, err := profile.Find(tm.AgentType, env.Getenv)
	if err != nil {
		return refuseTeammate(ctx, env, tm, tm.AgentType, err)
	}
	plan, err := router.Map(tm, p)
	if err != nil {
		return refuseTeammate(ctx, env, tm, p.Title, err)
	}
	if err := checkLeadVerifyKey(tm.LeadVerifyKey); err != nil {
		return refuseTeammate(ctx, env, tm, p.Title, err)
	}
	prog, err := p.Locate(env.Getenv("PATH"))
	if err != nil {
		return refuseTeammate(ctx, env, tm, p.Title, err)
	}
	t, err := routedMember(ctx, env, tm, p)
	if err != nil {
		return refuseTeammate(ctx, env, tm, p.Title, err)
	}
	for _, n := range plan.Notes {
		warnf(env, "%s", n)
	}
	prompt := ""
	if told := teammateWorktree(ctx, &env, rc, o.Link, tm); told != "" {
		// The lead's prompt is in the inbox; this comes first.
		prompt = told + "\n\nStart by calling read_inbox."
	}
	cwd, _ := os.Getwd()
	recordLaunch(env, t, tm, p.Name, prog, cwd, "", launch.Home(t, tm.Name))
	// The loop obeys, and the MCP server shows as verified, only what
	// the lead signed with the key Claude gave this teammate.
	tc := teammate.Config{Team: t, Name: tm.Name, Log: env.Stderr, LeadKey: tm.LeadVerifyKey}
	return runAgentTeammate(ctx, env, tc, nil, agentTeammateOptions{
		Agent: p.Name, Prompt: prompt, Model: plan.Model, PermissionMode: plan.PermissionMode, Effort: plan.Effort, Deny: plan.Deny,
		LeadVerifyKey: tm.LeadVerifyKey, Budget: rc.Budget,
	})
}

// execClaudeTeammate runs Claude (or the person's own teammate program)
// with Claude's flags, as it would have run without paneteam, given a
// session id when it has none, or the earlier session of a resumed
// lead's teammate coming back; the launch is recorded first.
func execClaudeTeammate(ctx context.Context, env Env, rc router.Config, tm router.Teammate, args []string) error {
	if rc.Resumed {
		args = comeback(env, tm, args)
	}
	args, session := router.ClaudeArgs(args, mailbox.NewMsgID)
	var held *team.Team
	if tm.Team != "" && tm.Name != "" {
		if root, err := team.Root("", env.Getenv); err == nil {
			if t, _, err := team.Open(root, tm.Team); err == nil {
				cwd, _ := os.Getwd()
				recordLaunch(env, t, tm, "claude", rc.Claude, cwd, session, spawn.ClaudeConfigDir(env.Getenv), args...)
				if hasBudget(env, t, rc.Budget) {
					held = &t
				}
			}
		}
	}
	argv := append([]string{rc.Claude}, args...)
	if held == nil && rc.Budget > 0 {
		warnf(env, "%s runs without its budget: its team %s could not be read", tm.Name, tm.Team)
	}
	if held != nil {
		// Held to a budget, the router stays as Claude's parent to stop
		// it; it cannot ask first: only Claude's lead speaks as the lead.
		return runGuarded(ctx, env, *held, tm.Name, rc.Budget, argv, false)
	}
	if err := syscall.Exec(rc.Claude, argv, env.Environ()); err != nil {
		return fmt.Errorf("start %s: %w", rc.Claude, err)
	}
	return nil
}

// routedMember marks Claude's member as one paneteam runs for Claude's
// lead, running p's CLI.
func routedMember(ctx context.Context, env Env, tm router.Teammate, p *profile.Profile) (team.Team, error) {
	root, err := team.Root("", env.Getenv)
	if err != nil {
		return team.Team{}, err
	}
	t, _, err := team.Open(root, tm.Team)
	if err != nil {
		return team.Team{}, err
	}
	_, err = t.Update(ctx, lockfile.Options{}, func(cfg *team.Config) error {
		m := cfg.Member(tm.Name)
		if m == nil {
			return fmt.Errorf("%s is not a member of team %s: Claude's lead writes its teammates in before it starts them", tm.Name, tm.Team)
		}
		if m.Paneteam == nil {
			m.Paneteam = &team.MemberMeta{}
		}
		m.Paneteam.CLI, m.Paneteam.Routed = p.Name, true
		return nil
	})
	return t, err
}

// recordLaunch keeps the teammate's launch in paneteam's state folder; a
// failure is a warning, never a failed start.
func recordLaunch(env Env, t team.Team, tm router.Teammate, cli, prog, cwd, session, configDir string, args ...string) {
	state, err := provenance.StateDir(env.Getenv)
	if err != nil {
		warnf(env, "could not record %s's launch: %v", tm.Name, err)
		return
	}
	r := launches.Record{Root: t.Root, Team: t.Name, Agent: tm.Name, CLI: cli, Via: launches.ViaRouter,
		Program: prog, Args: args, Cwd: cwd, SessionID: session, ConfigDir: configDir, ParentSessionID: tm.ParentSessionID,
		Pane: env.Getenv("TMUX_PANE"), PID: os.Getpid()}
	if _, cfg, err := team.Open(t.Root, t.Name); err == nil {
		if m := cfg.Member(tm.Name); m != nil {
			r.Backend = m.BackendType
			if m.TmuxPaneID != "" {
				r.Pane = m.TmuxPaneID
			}
		}
	}
	if err := launches.Open(state).Write(r); err != nil {
		warnf(env, "could not record %s's launch: %v", tm.Name, err)
	}
}

// refuseTeammate tells Claude's lead, in the teammate's name, why the
// teammate it asked for did not start, and says so in the pane.
func refuseTeammate(ctx context.Context, env Env, tm router.Teammate, what string, why error) error {
	text := fmt.Sprintf("%s did not start as %s: %v", tm.Name, what, why)
	if tm.Team != "" && tm.Name != "" {
		if root, err := team.Root("", env.Getenv); err == nil {
			if t, cfg, err := team.Open(root, tm.Team); err == nil {
				msg := mailbox.Message{From: tm.Name, Text: text, Summary: "could not start", Color: tm.Color,
					Timestamp: mailbox.Timestamp(time.Now())}
				if err := post.OpenInbox(t, cfg, team.LeadName, lockfile.Options{}).Append(ctx, msg); err != nil {
					warnf(env, "could not tell the lead: %v", err)
				}
			}
		}
	}
	return exitError{code: ExitFailure, err: errors.New(text)}
}

// comeback is args with --resume of the earlier session of this name's
// teammate, when the resumed lead that starts it had one that can go on
// (router.Resume); else args, and a line in the pane saying why not.
func comeback(env Env, tm router.Teammate, args []string) []string {
	state, err := provenance.StateDir(env.Getenv)
	if err != nil {
		return args
	}
	root, err := team.Root("", env.Getenv)
	if err != nil {
		return args
	}
	cwd, _ := os.Getwd()
	var since time.Time
	if _, cfg, err := team.Open(root, tm.Team); err == nil {
		if lp, ok := cfg.LeadProcess(); ok {
			since = time.UnixMilli(int64(lp.ClaimedAt))
		}
	}
	rec := launches.Open(state).OfLead(root, tm.ParentSessionID, tm.Name)
	c := router.Resume(args, rec, cwd, root, since, func(pid int) bool { return proc.Alive(pid, "") })
	if c.Session == "" {
		if c.Why != "" {
			warnf(env, "%s starts fresh: %s", tm.Name, c.Why)
		}
		return args
	}
	warnf(env, "%s goes on with its earlier conversation (session %s)", tm.Name, c.Session)
	return append(slices.Clone(args), "--resume", c.Session)
}
