package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/lifecycle"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
)

func cleanupCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "cleanup",
		Usage: "delete a team and what paneteam started for it, or reap teams whose lead is gone",
		Description: `With --team: deletes the team (not the session team of a Claude Code that
may be alive: Claude Code deletes that itself). Refuses while teammates are active (isActive
true or absent, as Claude Code counts them) and names them: shut them down
first with 'paneteam shutdown --team T --all', or pass --force to close
their panes anyway. Then closes the teammates' panes (only panes paneteam
made: tmux panes carrying its @paneteam-agent option, recorded iTerm2 and
in-process ids; never the lead's), stops the private tmux server paneteam
started for the team once no other pane is on it, removes worktrees in
which nothing would be lost, and deletes the team and task folders. A
worktree with uncommitted or unpushed work is kept, its path printed, and
the team kept with it so that running cleanup again finishes the job.

With --orphans (for cron): does the same for every team whose lead process
is gone (its pid is dead, or now names a process with another start time),
and stops the private tmux servers of leads that are gone (found in
$TMUX_TMPDIR or /tmp, tmux-<uid>/): Claude Code's claude-swarm-<pid>, and
paneteam-<pid>-<team>-<hash> (one per team) unless a pane paneteam did not make is on it.

A team led by Claude Code (its session team, chosen by config.json's
leadProcess, never by its name) is reaped only when its lead is provably
dead by Claude Code's own test (gone, a zombie, or its pid now names
another process) and it has not changed for an hour (so that 'claude
--resume' still finds its tasks; --older-than sets this too). The decision
is taken again under config.json.lock, and stands only if the same lead
(pid and claim time) is still recorded; then the panes paneteam made for it
are closed and its team and task folders deleted, as Claude Code does at
exit. Panes carrying @paneteam-agent whose team folder is gone (Claude Code
deletes its team when it exits) are closed too, when their PANETEAM_ROOT is
this root; so are the panes 'paneteam claude' made for a Claude Code lead
that is gone (killed before it could close them), on the servers paneteam
has made panes on and on this $TMUX.

A team paneteam led whose lead and every teammate's pane died without a
shutdown (a tmux server that died, a closed terminal, a reboot) can come
back with 'paneteam resume': it is kept for --resume-grace (default 24h)
after its last change, shown as resumable by status and the dashboard, and
only then reaped (its untouched worktrees go with it then, not before).

Live teams, leads in another pid namespace, teams without a recorded lead,
panes it cannot prove paneteam made and worktrees with work are never
touched. It needs no terminal, asks nothing, prints nothing when there is
nothing to do (unless on a terminal), and concurrent runs take turns.

    paneteam cleanup --team review
    paneteam cleanup --orphans --dry-run
    paneteam cleanup --orphans --older-than 1h      # from cron; see scripts/`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "with --team: close active teammates' panes instead of refusing"},
			&ucli.BoolFlag{Name: "orphans", Usage: "reap every team whose lead process is gone, and private tmux servers of gone leads"},
			&ucli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would be done and change nothing"},
			&ucli.DurationFlag{Name: "older-than", Usage: "with --orphans: spare teams active (and servers started) within this long; a team whose Claude Code lead is gone is spared 1h by default"},
			&ucli.DurationFlag{Name: "resume-grace", Usage: "with --orphans: keep a team that 'paneteam resume' can bring back this long after its last change (0: reap it now)", Value: lifecycle.DefaultResumeGrace},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readCleanupOptions(c, env)
			if err != nil {
				return err
			}
			if o.Orphans {
				return runCleanupOrphans(ctx, env, o)
			}
			return runCleanupTeam(ctx, env, o)
		},
	}
}

type cleanupOptions struct {
	Scope     teamScope
	Lifecycle lifecycle.Options
	Orphans   bool
	Force     bool
	DryRun    bool
	// OlderThan is --older-than, nil when not given.
	OlderThan *time.Duration
	// ResumeGrace is --resume-grace, nil when not given.
	ResumeGrace *time.Duration
	JSON        bool
}

func readCleanupOptions(c *ucli.Command, env Env) (cleanupOptions, error) {
	o := cleanupOptions{
		Scope: readTeamScope(c), Lifecycle: readLifecycle(c, env), Orphans: readFlags(c).Bool("orphans"),
		Force: readFlags(c).Bool("force"), DryRun: readFlags(c).Bool("dry-run"), JSON: readFlags(c).Bool("json"),
	}
	if readFlags(c).IsSet("older-than") {
		d := readFlags(c).Duration("older-than")
		o.OlderThan = &d
	}
	if readFlags(c).IsSet("resume-grace") {
		d := readFlags(c).Duration("resume-grace")
		o.ResumeGrace = &d
	}
	if !o.Orphans {
		if o.ResumeGrace != nil {
			return o, usagef("--resume-grace goes with --orphans")
		}
		if o.OlderThan != nil {
			return o, usagef("--older-than goes with --orphans")
		}
		if o.Scope.Team == "" {
			return o, usagef("say what to clean up: --team NAME, or --orphans for teams whose lead is gone")
		}
		return o, nil
	}
	// PANETEAM_TEAM may be set in a teammate's environment; only a --team
	// typed next to --orphans is a mistake.
	if t := o.Scope.Team; t != "" && t != env.Getenv("PANETEAM_TEAM") {
		return o, usagef("--orphans looks at every team; drop --team %s (or drop --orphans to delete that team)", t)
	}
	if o.Force {
		return o, usagef("--force goes with --team; --orphans already closes the panes of teams whose lead is gone")
	}
	return o, nil
}

func runCleanupTeam(ctx context.Context, env Env, o cleanupOptions) error {
	t, _, err := o.Scope.open(ctx, env)
	if err != nil {
		return err
	}
	res, err := o.Lifecycle.Cleanup(ctx, t, lifecycle.CleanupOptions{Force: o.Force, DryRun: o.DryRun})
	if res == nil {
		return err
	}
	if o.JSON {
		if perr := printJSON(env.Stdout, res); perr != nil {
			return perr
		}
	} else {
		writeCleanup(env.Stdout, res, "")
	}
	return err
}

func runCleanupOrphans(ctx context.Context, env Env, o cleanupOptions) error {
	root, err := env.root(o.Scope.Root)
	if err != nil {
		return err
	}
	ro := lifecycle.ReapOptions{DryRun: o.DryRun}
	if state, err := env.stateDir(); err == nil {
		ro.VirtualDir = virtualtmux.Dir(state)
	}
	if o.OlderThan != nil {
		ro.OlderThan = *o.OlderThan
		ro.ClaudeGrace = *o.OlderThan
		if ro.ClaudeGrace == 0 {
			ro.ClaudeGrace = -1 // none; zero would mean the default
		}
	}
	if o.ResumeGrace != nil {
		ro.ResumeGrace = *o.ResumeGrace
		if ro.ResumeGrace == 0 {
			ro.ResumeGrace = -1 // none; zero would mean the default
		}
	}
	res, err := o.Lifecycle.Reap(ctx, root, ro)
	if res == nil {
		return err
	}
	if o.JSON {
		if perr := printJSON(env.Stdout, res); perr != nil {
			return perr
		}
		return err
	}
	writeReap(env.Stdout, res, env.StdoutTTY)
	return err
}

func would(dry bool, did, plan string) string {
	if dry {
		return plan
	}
	return did
}

func writeCleanup(w io.Writer, res *lifecycle.CleanupResult, indent string) {
	dry := res.DryRun
	for _, m := range res.Members {
		switch {
		case m.Error != "":
			showf(w, "%s%s: pane left open: %s\n", indent, m.Name, m.Error)
		default:
			showf(w, "%s%s: %s\n", indent, m.Name, would(dry, "pane closed", "would close its pane"))
		}
		if wt := m.Worktree; wt != nil {
			if wt.Removed {
				showf(w, "%s  %s %s\n", indent, would(dry, "removed worktree", "would remove worktree"), wt.Path)
			} else {
				showf(w, "%s  %s\n", indent, wt.Kept)
			}
		}
	}
	if s := res.Server; s != nil {
		if s.Stopped {
			showf(w, "%s%s %s\n", indent, would(dry, "stopped tmux server", "would stop tmux server"), s.Socket)
		} else {
			showf(w, "%s%s\n", indent, s.Why)
		}
	}
	switch {
	case res.Deleted:
		showf(w, "%steam %s %s\n", indent, res.Team, would(dry, "deleted", "would be deleted"))
	case dry:
		showf(w, "%steam %s would be kept (see above)\n", indent, res.Team)
	default:
		showf(w, "%steam %s kept (see above); run cleanup again once that is resolved\n", indent, res.Team)
	}
}

func writeReap(w io.Writer, res *lifecycle.ReapResult, tty bool) {
	dry := res.DryRun
	for _, r := range res.Worktrees {
		showf(w, "removed %s/%s's untouched worktree %s\n", r.Team, r.Member, r.Path)
	}
	for _, o := range res.Orphans {
		showf(w, "orphan team %s (%s):\n", o.Team, o.Why)
		writeCleanup(w, o.CleanupResult, "  ")
	}
	for _, s := range res.Servers {
		if s.Stopped {
			showf(w, "%s %s: %s\n", would(dry, "stopped tmux server", "would stop tmux server"), s.Socket, s.Why)
		} else {
			showf(w, "%s\n", s.Why)
		}
	}
	closed := 0
	for _, p := range res.Panes {
		where := p.Socket
		if p.Terminal != "" {
			where = p.Terminal + " (" + p.Socket + ")"
		}
		switch {
		case p.Closed:
			closed++
			showf(w, "%s pane %s (%s) in %s: %s\n", would(dry, "closed", "would close"), p.Pane, p.Agent, where, p.Why)
		case dry:
			showf(w, "left alone: pane %s (%s) in %s: %s\n", p.Pane, p.Agent, where, p.Why)
		}
	}
	for _, l := range res.StaleLocks {
		showf(w, "%s pane lock %s (its tmux server is gone)\n", would(dry, "removed", "would remove"), l)
	}
	for _, r := range res.Records {
		showf(w, "%s record %s (its pane is gone)\n", would(dry, "removed", "would remove"), r)
	}
	if dry {
		for _, s := range res.Skipped {
			showf(w, "left alone: team %s (%s)\n", s.Team, s.Why)
		}
	}
	if len(res.Orphans) == 0 && len(res.Servers) == 0 && closed == 0 && len(res.Worktrees) == 0 && len(res.StaleLocks) == 0 && len(res.Records) == 0 && (tty || dry) {
		fmt.Fprintln(w, "nothing to clean up")
	}
}
