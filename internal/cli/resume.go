package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/team"
)

func resumeCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "resume",
		Usage: "bring back a team whose panes went away (a tmux server that died, a closed terminal, a reboot)",
		Description: `Starts again every member of a team paneteam leads whose pane or process is
gone, from what paneteam recorded when it started it (its launch record, in
paneteam's state folder), in a pane laid out as before, on the same backend
when it is there (a fallback is said). Members still running are left
alone; the task list is not touched. Unless the team's lead still runs,
this command's process (this tmux pane's, else the parent shell, or
--leader-pid) becomes its lead, as team-create makes one, so 'cleanup
--orphans' sees a living team. Resumes of teams under one root take
turns.

  - A Claude Code teammate continues its own conversation (--resume with
    the session it was started with, from the same folder, same name,
    colour and signing key) and then reads what was sent to it while it
    was down. When its conversation cannot be continued it starts fresh
    and is told where the earlier one is.
  - A program (spawn-pane -- CMD, teammate -- CMD) starts again.
  - An agent CLI teammate (--agent: Codex, Gemini CLI, OpenCode) continues
    its CLI's own session, the one its turn-end hook last named, under
    the same wrapper (team tools, hook, notices), and is asked to read
    what was sent to it while down. One whose session is not known (it
    never ended a turn, or its profile has no "resume") starts a fresh
    session and is told so.
  - A teammate on another host is reconnected, as 'reconnect' does.

Every run says what it started: each teammate spends tokens again.
--dry-run says it and starts nothing.

--all brings back every team under the root that paneteam led, whose lead
and every pane are gone, and that was active within --within (default
24h): what a reboot or a tmux server that died leaves.

    paneteam resume --team review
    paneteam resume --all --dry-run`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.BoolFlag{Name: "all", Usage: "every team whose lead and panes are gone and that was active within --within"},
			&ucli.DurationFlag{Name: "within", Value: resume.DefaultWithin, Usage: "with --all: only teams active within this long"},
			&ucli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would start and start nothing"},
			&ucli.IntFlag{Name: "leader-pid", Usage: "pid of the process that becomes the teams' lead (default: this tmux pane's process, else the parent shell)"},
			&ucli.DurationFlag{Name: "startup-check", Usage: "how long each restarted command is watched for an immediate failure (default 50ms; 3s for a resumed Claude Code)"},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readResumeOptions(c)
			if err != nil {
				return err
			}
			return runResume(ctx, env, o)
		},
	}
}

type resumeOptions struct {
	Scope        teamScope
	All          bool
	Within       time.Duration
	DryRun       bool
	StartupCheck time.Duration
	LeaderPID    int // 0: defaultLeaderPID
	JSON         bool
}

func readResumeOptions(c *ucli.Command) (resumeOptions, error) {
	o := resumeOptions{Scope: readTeamScope(c), All: readFlags(c).Bool("all"), Within: readFlags(c).Duration("within"),
		DryRun: readFlags(c).Bool("dry-run"), StartupCheck: readFlags(c).Duration("startup-check"), LeaderPID: readFlags(c).Int("leader-pid"), JSON: readFlags(c).Bool("json")}
	if c.NArg() > 0 {
		return o, usagef("resume takes no arguments (got %q): name the team with --team", c.Args().First())
	}
	if readFlags(c).IsSet("within") && !o.All {
		return o, usagef("--within goes with --all")
	}
	if o.All && readFlags(c).IsSet("team") {
		return o, usagef("--all looks at every team; drop --team %s (or drop --all to resume that team)", o.Scope.Team)
	}
	return o, nil
}

func runResume(ctx context.Context, env Env, o resumeOptions) error {
	base, err := resumeBase(ctx, env, o.Scope.Lock, o.LeaderPID)
	if err != nil {
		return err
	}
	base.DryRun, base.StartupCheck = o.DryRun, o.StartupCheck
	var teams []team.Team
	if o.All {
		root, err := env.root(o.Scope.Root)
		if err != nil {
			return err
		}
		found, err := resume.Find(ctx, root, base.Records, base.BackendEnv, o.Within, time.Now())
		if err != nil {
			return err
		}
		for _, f := range found {
			if t, _, err := team.Open(root, f.Team); err == nil {
				teams = append(teams, t)
			}
		}
	} else {
		t, _, err := o.Scope.open(ctx, env)
		if err != nil {
			return err
		}
		teams = append(teams, t)
	}
	results := []*resume.Result{}
	var errs []error
	for _, t := range teams {
		ro := base
		ro.Team = t
		res, err := resume.Team(ctx, ro)
		if res != nil {
			results = append(results, res)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if o.JSON {
		var out any = results
		if !o.All && len(results) == 1 {
			out = results[0]
		}
		if err := printJSON(env.Stdout, out); err != nil {
			return err
		}
		return errors.Join(errs...)
	}
	if o.All && len(teams) == 0 {
		showf(env.Stdout, "no team to resume: none paneteam led has lost its lead and panes within %s\n", o.Within)
	}
	for _, r := range results {
		writeResume(env, r)
	}
	return errors.Join(errs...)
}

// writeResume says what a resume started, member by member
// (resume.Result.Lines, the words paneteam web shows too).
func writeResume(env Env, r *resume.Result) {
	for _, l := range r.Lines() {
		fmt.Fprintln(env.Stdout, l)
	}
}
