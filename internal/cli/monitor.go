package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
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
requests waiting and answered; a lock held longer than --lock-age. What
happened before it started is not printed. It follows file-system events on
the team, inbox and task folders, and re-reads every --poll as a safety net.
When the team is deleted it says so and exits 0.

    paneteam monitor --team review
    paneteam monitor --team review --json | jq -c 'select(.kind=="member-idle")'

Lines read: TIME  KIND  WHO  WHAT. Text that teammates control (names,
summaries) is shown, never sent raw to the terminal: a text holding a
control character is printed quoted as $'…' with it escaped ($'a\nb' is
a real line break, a\nb a typed backslash-n). --json prints one object
per line with kind, time, team, who and the fields of that kind (to,
type, summary, task, subject, owner, state, pending, lock,
heldForSeconds).`,
		Flags: []ucli.Flag{
			teamFlag(),
			jsonFlag(),
			&ucli.DurationFlag{Name: "poll", Usage: "safety-net re-read interval (also how soon a dead pane or an old lock is noticed)", Value: teamwatch.DefaultPoll},
			&ucli.DurationFlag{Name: "lock-age", Usage: "report a lock held longer than this", Value: teamwatch.DefaultLockAge},
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
	Scope teamScope
	JSON  bool
	Watch watchOptions
}

func readMonitorOptions(c *ucli.Command) (monitorOptions, error) {
	if c.NArg() > 0 {
		return monitorOptions{}, usagef("monitor takes no arguments (got %q): name the team with --team", c.Args().First())
	}
	o := monitorOptions{Scope: readTeamScope(c), JSON: c.Bool("json"), Watch: readWatchOptions(c)}
	if o.Watch.Poll <= 0 || o.Watch.LockAge <= 0 {
		return o, usagef("--poll and --lock-age must be positive, such as 1s")
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
	w := newTeamWatcher(env, t, o.Watch)
	defer w.Close()
	if _, _, err := w.Next(ctx); err != nil {
		return stopped(err)
	}
	fmt.Fprintf(env.Stderr, "paneteam: watching team %s; press Ctrl-C to stop\n", visible.Line(t.Name))
	for {
		_, events, err := w.Next(ctx)
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
