package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/factory"
	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/core/lifecycle"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/term/tty"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

func dashboardCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "dashboard",
		Usage: "a full-screen live view of a team: members, tasks, and the requests waiting for you",
		Description: `Shows the team and keeps it current as files change: each member with its
state (! NEEDS YOU when a permission, sandbox or plan request waits for
you; * active; - idle; x gone), backend, pane and unread messages; the
tasks with owners and what blocks what; the requests waiting for the lead
with teammate, what is asked and how long it has waited.

Keys: tab moves between sections, up/down selects, enter shows the row
whole (a request's full tool input or plan), a approves the selected
request, A approves it and adds the "always allow" rule it suggests, d
denies it (type optional feedback, enter), m sends the selected member a
message, h hides or shows its pane, s stops it (a shutdown request, after
you confirm with y), g goes to its tmux pane, r reviews the team's work,
? shows help, q quits.

Review (r), started in the working tree of the branch the work should
reach: each teammate with work, its commits, uncommitted files and lines,
whether it lands cleanly and with whom it conflicts; enter shows its diff,
where up/down move a cursor line and c comments on it (sent as 'paneteam
review NAME --comment FILE:LINE TEXT' sends it); l lands it, after a
confirmation that says the mode, the branch and that its worktree and
branch go (y lands, as 'paneteam land NAME'; the undo command is shown).

--requests is a mode for a tmux popup: one waiting request at a
time, whole; a approve, A always, d deny, n/p next/previous, q quit. When
none is waiting it says so and waits for a key.

    paneteam dashboard --team review
    cd ~/src/app && paneteam dashboard     # r: review and land onto this branch
    paneteam dashboard --requests          # inside tmux: the session's @paneteam-team
    # ~/.tmux.conf:
    bind-key P display-popup -E -w 90% -h 80% "paneteam dashboard --requests"

Without --team or PANETEAM_TEAM, inside tmux (a popup included) the team is
the tmux session's @paneteam-team option (tmux set-option @paneteam-team
NAME). NO_COLOR turns colour off; the marks read without it. Text a
teammate wrote is shown with control characters as visible escapes.

The dashboard is drawn by the program paneteam-dashboard, installed beside
paneteam ('go install github.com/paneteam/paneteam/cmd/...@latest'
installs both); PANETEAM_DASHBOARD_BIN names another.`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.BoolFlag{Name: "requests", Aliases: []string{"r"}, Usage: "review mode: one waiting request at a time, single keys (for a tmux popup)"},
			&ucli.DurationFlag{Name: "poll", Usage: "safety-net re-read interval (file-system events refresh at once)", Value: teamwatch.DefaultPoll},
			&ucli.DurationFlag{Name: "stop-timeout", Usage: "how long s waits for a teammate to answer its shutdown request", Value: lifecycle.DefaultShutdownTimeout},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readDashboardOptions(c)
			if err != nil {
				return err
			}
			return runDashboard(ctx, env, o)
		},
	}
}

// dashboardOptions are dashboard's flags.
type dashboardOptions struct {
	Scope       teamScope
	Requests    bool // review mode: one waiting request at a time
	Poll        time.Duration
	StopTimeout time.Duration
}

func readDashboardOptions(c *ucli.Command) (dashboardOptions, error) {
	if c.NArg() > 0 {
		return dashboardOptions{}, usagef("dashboard takes no arguments (got %q): name the team with --team", c.Args().First())
	}
	o := dashboardOptions{Scope: readTeamScope(c), Requests: readFlags(c).Bool("requests"), Poll: readFlags(c).Duration("poll"), StopTimeout: readFlags(c).Duration("stop-timeout")}
	if o.Poll <= 0 || o.StopTimeout <= 0 {
		return o, usagef("--poll and --stop-timeout must be positive, such as 1s")
	}
	return o, nil
}

func runDashboard(ctx context.Context, env Env, o dashboardOptions) error {
	if !env.StdinTTY || !env.StdoutTTY {
		return usagef("dashboard draws on a terminal, and stdin or stdout is not one: " +
			"run it in a terminal or a tmux popup (for scripts: paneteam status, requests or monitor)")
	}
	err := showDashboard(ctx, env, o)
	if err != nil && env.Getenv("TMUX") != "" && env.Getenv("TMUX_PANE") == "" {
		// A popup closes when its command exits: say why first.
		holdOnError(env, err)
	}
	return err
}

// holdOnError shows err and waits for a key, so that a popup does not
// vanish before the person has read why.
func holdOnError(env Env, err error) {
	f, ok := env.Stdin.(*os.File)
	if !ok {
		return
	}
	fmt.Fprintf(env.Stderr, "paneteam: %s\r\npress any key to close\r\n", errorText(err))
	if restore, rerr := tty.MakeRaw(int(f.Fd())); rerr == nil {
		defer restore() //nolint:errcheck
	}
	var b [1]byte
	f.Read(b[:]) //nolint:errcheck
}

// DashboardSession is what the dashboard draws from: the team, how to
// act on it and the watcher that follows it.
type DashboardSession struct {
	Team            team.Team
	Lock            lockfile.Options
	Backend         backend.Env
	Caller          post.Caller
	Keys            factory.Keys
	Watch           teamwatch.Options
	ShutdownTimeout time.Duration
	Review          bool // one waiting request at a time (--requests)
	Color           bool
	QuitAfterJump   bool // a tmux popup: close once a pane was jumped to
	Watcher         *teamwatch.Watcher
	In              io.Reader
	Out             io.Writer
	// The review view's: the lead's working tree (the folder the
	// dashboard started in), paneteam's worktree records, and a land
	// worded as 'paneteam land' words it.
	Dir     string
	Records worktree.Records
	Landed  func(land.Lead, worktree.Record, *land.Result) string
	Refused func(error, land.Lead, worktree.Record) error
}

// DashboardUI draws the dashboard until the person quits and returns the
// line to print after. It is set by paneteam-dashboard
// (cmd/paneteam-dashboard), the program that links Bubble Tea; in
// paneteam it is nil, and 'paneteam dashboard' becomes that program. So
// no other command pays for Bubble Tea's start: its packages' and their
// dependencies' initialisation was a third of the instructions of a
// 'paneteam send' (bench/RESULTS.md).
var DashboardUI func(ctx context.Context, s DashboardSession) (string, error)

// dashboardName is the program that draws the dashboard.
const dashboardName = "paneteam-dashboard"

// execDashboard replaces this process with paneteam-dashboard, given the
// same command line: the terminal, a tmux popup's process and the
// signals stay as they are.
func execDashboard(env Env) error {
	path, err := companionPath(env, dashboardName, "PANETEAM_DASHBOARD_BIN")
	if err != nil {
		return err
	}
	args := append([]string{path}, env.Args[1:]...)
	if err := syscall.Exec(path, args, env.Environ()); err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	return nil
}

// showDashboard finds the team as every command does (--team, else
// PANETEAM_TEAM, else inside tmux, a popup included, the session's
// @paneteam-team, else the Claude Code session the caller runs in) and
// runs the dashboard on it until the person quits.
func showDashboard(ctx context.Context, env Env, o dashboardOptions) error {
	if DashboardUI == nil {
		return execDashboard(env)
	}
	t, _, err := o.Scope.open(ctx, env)
	if err != nil {
		return err
	}
	bend := statusBackendEnv(env)
	opts := stateOptions(env)
	if state, err := env.stateDir(); err == nil {
		opts.Cost = costReader(env, state) // each member's spending, and the team's in the header
	}
	w := teamwatch.NewWatcher(t, teamwatch.WatchOptions{Options: opts, Poll: o.Poll})
	defer w.Close()
	s := DashboardSession{Team: t, Lock: o.Scope.Lock, Backend: bend, Watch: opts, ShutdownTimeout: o.StopTimeout,
		Caller: post.Caller{Getenv: env.Getenv}, Review: o.Requests, Color: env.Color(),
		// A popup has TMUX but no TMUX_PANE: jumping there must close it.
		QuitAfterJump: env.Getenv("TMUX") != "" && env.Getenv("TMUX_PANE") == "",
		Watcher:       w, In: env.Stdin, Out: env.Stdout}
	if lead, err := openLead(ctx, o.Scope, env); err == nil {
		s.Keys = lead.Keys // as approve and deny answer
	}
	s.Dir, _ = os.Getwd()
	if state, err := env.stateDir(); err == nil {
		s.Records = worktree.OpenRecords(state)
	}
	s.Landed, s.Refused = landedText, landRefusal
	final, err := DashboardUI(ctx, s)
	if final != "" {
		fmt.Fprintln(env.Stderr, final)
	}
	return err
}
