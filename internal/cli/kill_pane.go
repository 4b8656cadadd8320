package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/lifecycle"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

func killPaneCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "kill-pane",
		Usage: "stop a teammate: close its pane, remove it from the team, release its tasks",
		Description: `Closes the teammate's pane (only a pane paneteam started for that
teammate: it carries the tmux option @paneteam-agent), removes the member
from config.json, and puts its unfinished tasks back to pending with no
owner, as Claude Code does when a teammate shuts down. A worktree made
with spawn-pane --worktree is removed too, unless it holds uncommitted or
unpushed work: then it is kept and kill-pane says where. Only the folder
paneteam recorded making is removed: a link or another folder in its place,
or a worktreePath in config.json paneteam has no record of, is left alone
and kill-pane says why.

    paneteam kill-pane --team review --name alice

A pane that is already gone is fine: the member is still removed. To ask a
Claude Code teammate to finish its work first, use 'paneteam shutdown'.
A teammate Claude Code started itself (in its process or its own pane) is
refused at once: only Claude's lead can stop it; ask Claude's lead.`,
		Flags: []ucli.Flag{teamFlag(), memberFlag("teammate to stop"), jsonFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			return runKillPane(ctx, env, readKillPaneOptions(c, env))
		},
	}
}

type killPaneOptions struct {
	Member    memberScope
	Lifecycle lifecycle.Options
	JSON      bool
}

func readKillPaneOptions(c *ucli.Command, env Env) killPaneOptions {
	return killPaneOptions{Member: readMemberScope(c), Lifecycle: readLifecycle(c, env), JSON: readFlags(c).Bool("json")}
}

func runKillPane(ctx context.Context, env Env, o killPaneOptions) error {
	t, _, m, err := o.Member.open(ctx, env)
	if err != nil {
		return err
	}
	d, departErr := departOne(ctx, o.Lifecycle, t, m.Name)
	if !d.Removed {
		return departErr
	}
	if departErr != nil {
		return departErr
	}
	released := d.ReleasedTasks
	if o.JSON {
		if released == nil {
			released = []string{}
		}
		out := map[string]any{"agent_id": m.AgentID, "pane_id": m.TmuxPaneID, "released_tasks": released}
		if d.Worktree != nil {
			out["worktree"] = d.Worktree
		}
		return printJSON(env.Stdout, out)
	}
	msg := "stopped " + m.AgentID
	if len(released) > 0 {
		msg += "; tasks back to pending: " + strings.Join(released, ", ")
	}
	switch w := d.Worktree; {
	case w == nil:
	case w.Removed:
		msg += "; worktree " + w.Path + " removed"
	default:
		msg += "; " + w.Kept
	}
	_, err = fmt.Fprintln(env.Stdout, visible.Line(msg))
	return err
}

// departOne takes one teammate out of the team the way shutdown does
// (lifecycle.Depart): close its pane, remove the member, release its tasks,
// remove its worktree fail-closed. Unless Removed, the error says why it
// is still a member.
func departOne(ctx context.Context, lo lifecycle.Options, t team.Team, name string) (lifecycle.Departure, error) {
	deps, err := lo.Depart(ctx, t, []string{name})
	if len(deps) != 1 {
		return lifecycle.Departure{Name: name}, err
	}
	d := deps[0]
	switch {
	case d.Error != "":
		return d, errors.New(d.Error)
	case err != nil && d.Removed:
		return d, fmt.Errorf("%s stopped and left the team, but: %w", name, err)
	}
	return d, err
}
