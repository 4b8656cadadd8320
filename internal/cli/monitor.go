package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/notice"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/osc"
	"github.com/paneteam/paneteam/internal/term/visible"
)

func monitorCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "monitor",
		Usage: "print one line per event in a team as it happens",
		Description: `Follows a team and prints one line per event, until interrupted: members
joining, leaving, going idle or active, needing you (a permission, sandbox
or plan request waits for the lead) or gone (pane dead); every message sent
(sender, recipient, protocol type or "message", summary); tasks created,
claimed, completed, unblocked (all their blockers completed) or deleted;
requests waiting and answered; a lock held longer than --lock-age; with
--spent USD, a teammate whose estimated cost passes USD (see status). What
happened before it started is not printed. It follows file-system events on
the team, inbox and task folders, and re-reads every --poll as a safety net.
When the team is deleted it says so and exits 0.

    paneteam monitor --team review
    paneteam monitor --team review --json | jq -c 'select(.kind=="member-idle")'
    paneteam monitor --team review --spent 1 --spent 5

Lines read: TIME  KIND  WHO  WHAT. Text that teammates control (names,
summaries) is shown, never sent raw to the terminal: a text holding a
control character is printed quoted as $'…' with it escaped ($'a\nb' is
a real line break, a\nb a typed backslash-n). --json prints one object
per line with kind, time, team, who and the fields of that kind (to,
type, summary, task, subject, owner, state, pending, lock,
heldForSeconds, costUSD, thresholdUSD).

Notices are off unless asked for. --notify tmux shows each in the tmux
message line and rings the bell in the teammate's window; --notify
terminal asks the terminal for a desktop notification (kitty, iTerm2,
WezTerm and others; under tmux through allow-passthrough); --exec runs
the command given after -- once per notice, the notice as JSON on its
standard input. They tell: a teammate needs you (a request waits, or it
asks in its pane), finished a task it owned, died (its pane is gone);
the whole team is idle. Each once, not again while it lasts; after one,
the next wait for --notify-quiet and come together. docs/NOTICES.md.

    paneteam monitor --team review --notify tmux,terminal
    paneteam monitor --team review --exec -- notify-json-to-phone`,
		Flags: []ucli.Flag{
			teamFlag(),
			jsonFlag(),
			&ucli.DurationFlag{Name: "poll", Usage: "safety-net re-read interval (also how soon a dead pane or an old lock is noticed)", Value: teamwatch.DefaultPoll},
			&ucli.DurationFlag{Name: "lock-age", Usage: "report a lock held longer than this", Value: teamwatch.DefaultLockAge},
			&ucli.StringFlag{Name: "notify", Usage: "tell the person when the team needs them, in these ways: tmux, terminal (comma-separated; off when unset)"},
			&ucli.BoolFlag{Name: "exec", Usage: "run the command given after -- per notice, the notice as JSON on its standard input (never through a shell)"},
			&ucli.DurationFlag{Name: "notify-quiet", Usage: "after a notice, hold the next ones this long and send them as one", Value: notice.DefaultQuiet},
			&ucli.FloatSliceFlag{Name: "spent", Usage: "print a member-spent line when a teammate's estimated cost passes this many dollars (repeat for several)"},
			&ucli.StringFlag{Name: "terminal", Usage: "the terminal's notification sequence for --notify terminal: osc9 (iTerm2), osc99 (kitty), osc777 (WezTerm, foot); guessed when unset"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readMonitorOptions(c)
			if err != nil {
				return err
			}
			return runMonitor(ctx, env, o)
		},
	}
}

// monitorOptions are monitor's flags.
type monitorOptions struct {
	Scope  teamScope
	JSON   bool
	Watch  watchOptions
	Notify notice.Setup
	Quiet  time.Duration
	// Spent are the dollar thresholds of member-spent lines.
	Spent []float64
}

func readMonitorOptions(c *ucli.Command) (monitorOptions, error) {
	exec := readFlags(c).Bool("exec")
	if c.NArg() > 0 && !exec {
		return monitorOptions{}, usagef("monitor takes no arguments (got %q): name the team with --team", c.Args().First())
	}
	if exec && c.NArg() == 0 {
		return monitorOptions{}, usagef("--exec runs the command given after --: paneteam monitor --exec -- notify-send-json")
	}
	o := monitorOptions{Scope: readTeamScope(c), JSON: readFlags(c).Bool("json"), Watch: readWatchOptions(c), Quiet: readFlags(c).Duration("notify-quiet"),
		Spent: c.FloatSlice("spent")}
	for _, usd := range o.Spent {
		if usd <= 0 {
			return o, usagef("--spent %v: a threshold is a positive number of dollars, such as 5", usd)
		}
	}
	o.Watch.Spent = o.Spent
	if o.Watch.Poll <= 0 || o.Watch.LockAge <= 0 {
		return o, usagef("--poll and --lock-age must be positive, such as 1s")
	}
	if o.Quiet < 0 {
		return o, usagef("--notify-quiet cannot be negative")
	}
	ways, err := notice.ParseWays(readFlags(c).String("notify"))
	if err != nil {
		return o, usagef("--notify: %v", err)
	}
	o.Notify = notice.Setup{Ways: ways, Term: osc.Terminal(readFlags(c).String("terminal"))}
	if o.Notify.Term != osc.None && !slices.Contains(osc.Terminals, o.Notify.Term) {
		return o, usagef("--terminal %q: use osc9, osc99 or osc777", readFlags(c).String("terminal"))
	}
	if exec {
		o.Notify.Exec = c.Args().Slice()
	}
	return o, nil
}

// runMonitor prints each event of the team (teamwatch.Diff) until
// interrupted, or until the team is deleted.
func runMonitor(ctx context.Context, env Env, o monitorOptions) error {
	t, _, err := o.Scope.open(ctx, env)
	if err != nil {
		return err
	}
	n, err := monitorNotifier(ctx, env, &o)
	if err != nil {
		return err
	}
	defer n.Close()
	ctx, cancel := o.Notify.Bound(ctx)
	defer cancel()
	w := newTeamWatcher(env, t, o.Watch)
	defer w.Close()
	s, _, err := w.Next(ctx)
	if err != nil {
		return stopped(err)
	}
	n.Handle(ctx, s, nil)
	fmt.Fprintf(env.Stderr, "paneteam: watching team %s; press Ctrl-C to stop\n", visible.Line(t.Name))
	for {
		s, events, err := w.Next(ctx)
		if err == nil {
			n.Handle(ctx, s, events)
		}
		if errors.Is(err, teamwatch.ErrTeamGone) {
			events = []teamwatch.Event{{Time: time.Now(), Kind: teamwatch.KindTeamDeleted, Team: t.Name}}
		} else if err != nil {
			return stopped(err)
		}
		for _, e := range events {
			if err := writeEvent(env.Stdout, o.JSON, e); err != nil {
				return err
			}
		}
		if err != nil {
			return nil
		}
	}
}

// monitorNotifier is the notifier of the notices asked for, completing
// o.Notify with where the command runs (one with no
// senders when none were: notices are opt-in).
func monitorNotifier(ctx context.Context, env Env, o *monitorOptions) (*notice.Notifier, error) {
	setup := &o.Notify
	setup.TMUX, setup.Getenv, setup.ExecOutput = env.Getenv("TMUX"), env.Getenv, env.Stderr
	if env.StdoutTTY {
		setup.TTY = env.Stdout
	}
	senders, err := setup.Senders()
	if err != nil {
		return nil, usagef("%v", err)
	}
	if warn := setup.Warning(ctx); warn != "" {
		fmt.Fprintf(env.Stderr, "paneteam: warning: %s\n", warn)
	}
	var last string
	return &notice.Notifier{Senders: senders, Quiet: o.Quiet, OnError: func(err error) {
		if msg := err.Error(); msg != last {
			last = msg
			fmt.Fprintf(env.Stderr, "paneteam: warning: %s\n", visible.Line(msg))
		}
	}}, nil
}

// stopped turns an interrupt (SIGINT, SIGTERM) into a clean exit.
func stopped(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// writeEvent prints one event: a JSON line, or TIME KIND WHO WHAT with
// teammate text made visible; WHO is name@host for a teammate on another
// machine.
func writeEvent(w io.Writer, asJSON bool, e teamwatch.Event) error {
	if asJSON {
		return jsonLine(w, e)
	}
	who := e.WhoLabel()
	if who == "" {
		who = "-"
	}
	_, err := fmt.Fprintf(w, "%s  %-16s  %-12s  %s\n", e.Time.Local().Format("15:04:05"), e.Kind,
		visible.Line(who), e.What())
	return err
}
