package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/lifecycle"
)

func shutdownCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "shutdown",
		Usage:     "ask teammates to shut down, then close their panes and take them out of the team",
		ArgsUsage: "[NAME...]",
		Description: `Sends each named teammate (or, with --all, every member but the lead) a
shutdown_request from team-lead, as Claude Code's lead does, and waits for
each one's shutdown_approved or shutdown_rejected in the lead's inbox. Only
those answers are marked read; the rest of the lead's inbox is left alone.

A teammate that approves is given a moment to exit by itself, then its pane
is closed (tmux, iTerm2 or in-process alike), it is removed from config.json,
its unfinished tasks go back to pending with no owner, and its worktree is
removed if nothing in it would be lost (otherwise it is kept and its path
printed). Idle teammates are asked like any other: idle is not dead. A
teammate whose pane has already closed is removed without being asked.

A teammate started as a plain program (spawn-pane -- aider) never reads
its inbox, so it cannot answer: it is not asked but ended at once, its
pane closed as kill-pane closes it, and reported as "ended". Claude Code
teammates, --agent CLIs and programs under 'paneteam teammate' answer,
and are asked. A member paneteam has no record of (started by an older
paneteam, or written in by another program) is asked and waited for.

Exits 1 and names them when a teammate refuses or does not answer within
--timeout; --force then closes their panes anyway. A teammate whose pane
closes after it was asked counts as having approved.

In a team led by a live Claude Code process, a teammate Claude Code started
itself (in its own process or its own pane) is refused at once, since
Claude Code honours shutdown only from its own lead: ask Claude's lead.
With --all such teammates are left alone and named. A Claude Code teammate
paneteam started there (spawn-pane --claude) is paneteam's to shut down.

    paneteam shutdown --team review --name alice --name bob
    paneteam shutdown --team review --all --timeout 1m --reason "work is merged"
    paneteam shutdown --team review --all --timeout 10s --force`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringSliceFlag{Name: "name", Aliases: []string{"n"}, Usage: "a teammate to shut down (repeat for several; names may also follow the flags)"},
			&ucli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every member but the lead, idle ones included"},
			&ucli.DurationFlag{Name: "timeout", Value: lifecycle.DefaultShutdownTimeout, Usage: "how long to wait for answers"},
			&ucli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "after the timeout, close the panes of teammates that refused or did not answer"},
			&ucli.StringFlag{Name: "reason", Aliases: []string{"r"}, Usage: "why, passed on to the teammates in the request"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readShutdownOptions(c, env)
			if err != nil {
				return err
			}
			return runShutdown(ctx, env, o)
		},
	}
}

type shutdownOptions struct {
	Scope     teamScope
	Lifecycle lifecycle.Options
	Names     []string // --name and the arguments
	All       bool
	Timeout   time.Duration
	Force     bool
	Reason    string
	JSON      bool
}

func readShutdownOptions(c *ucli.Command, env Env) (shutdownOptions, error) {
	names := append(readFlags(c).StringSlice("name"), c.Args().Slice()...)
	if readFlags(c).Bool("all") == (len(names) > 0) {
		return shutdownOptions{}, usagef("name the teammates to shut down (--name N, repeatable) or pass --all, not both")
	}
	return shutdownOptions{
		Scope: readTeamScope(c), Lifecycle: readLifecycle(c, env), Names: names, All: readFlags(c).Bool("all"),
		Timeout: readFlags(c).Duration("timeout"), Force: readFlags(c).Bool("force"), Reason: readFlags(c).String("reason"), JSON: readFlags(c).Bool("json"),
	}, nil
}

func runShutdown(ctx context.Context, env Env, o shutdownOptions) error {
	t, _, err := o.Scope.open(ctx, env)
	if err != nil {
		return err
	}
	res, err := o.Lifecycle.Shutdown(ctx, t, lifecycle.ShutdownOptions{
		Names: o.Names, All: o.All, Reason: o.Reason, Timeout: o.Timeout, Force: o.Force,
	})
	if unsigned := (*lifecycle.UnsignedError)(nil); errors.As(err, &unsigned) {
		return fmt.Errorf("%w (or pass --force to close its pane after the timeout)", err)
	}
	if res == nil {
		return err
	}
	if o.JSON {
		if perr := printJSON(env.Stdout, res); perr != nil {
			return perr
		}
	} else {
		writeShutdown(env.Stdout, res, o.Timeout.String())
	}
	if err != nil {
		return err
	}
	return shutdownExit(res, o.Force)
}

func writeShutdown(w io.Writer, res *lifecycle.ShutdownResult, timeout string) {
	for _, n := range res.LeftToClaude {
		showf(w, "%s: left alone: Claude Code started it, and only Claude's lead can stop it (ask Claude's lead)\n", n)
	}
	if len(res.Members) == 0 && len(res.LeftToClaude) > 0 {
		return
	}
	if len(res.Members) == 0 {
		showf(w, "team %s has no teammates to shut down\n", res.Team)
		return
	}
	for _, m := range res.Members {
		var what string
		switch m.Answer {
		case lifecycle.AnswerApproved:
			what = "approved"
		case lifecycle.AnswerRejected:
			what = "refused: " + m.Reason
		case lifecycle.AnswerGone:
			what = "its pane had already closed"
		case lifecycle.AnswerExited:
			what = "exited (taken as its approval)"
		case lifecycle.AnswerEnded:
			what = "ended: it runs a plain program, which cannot answer a shutdown request"
		default:
			what = "no answer within " + timeout
		}
		switch {
		case m.Error != "":
			what += "; " + m.Error
		case m.Forced:
			what += "; closed anyway (--force)"
		case m.Removed:
			what += "; pane closed, removed from the team"
		default:
			what += "; still in the team"
		}
		if len(m.ReleasedTasks) > 0 {
			what += "; tasks " + strings.Join(m.ReleasedTasks, ", ") + " back to pending"
		}
		showf(w, "%s: %s\n", m.Name, what)
		if m.Worktree != nil {
			if m.Worktree.Removed {
				showf(w, "  worktree %s removed\n", m.Worktree.Path)
			} else {
				showf(w, "  %s\n", m.Worktree.Kept)
			}
		}
	}
}

// shutdownExit fails, naming them, when teammates are still in the team.
func shutdownExit(res *lifecycle.ShutdownResult, forced bool) error {
	left := res.Remaining()
	if len(left) == 0 {
		return nil
	}
	var names []string
	for _, m := range left {
		names = append(names, m.Name)
	}
	hint := "run again with --force to close their panes anyway"
	if forced {
		hint = "see the errors above"
	}
	return exitError{ExitFailure, fmt.Errorf("not shut down: %s; %s", strings.Join(names, ", "), hint)}
}
