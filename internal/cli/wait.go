package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/visible"
)

type waitOptions struct {
	Scope   teamScope
	Goal    teamwatch.Goal
	Timeout time.Duration // 0 waits for ever
	JSON    bool
}

func waitCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "wait",
		Usage: "block until teammates are idle, need you, or are gone",
		Description: `Blocks until every named teammate (--name, repeatable) or every teammate
(--all) is in the state --until names, then prints their states and exits 0:

  idle       finished its turn and waits for work
  needs-you  a permission, sandbox or plan request of it waits for the lead
  gone       it left the team, or its pane is dead

With --timeout it gives up after that long, exits 1 and names who is not
there yet. A teammate that leaves while you wait for idle or needs-you
fails the wait at once, naming it (for --until gone, leaving is success).

    paneteam wait --team review --all --until idle && make test
    paneteam wait --team review --name alice --until needs-you --timeout 10m
    paneteam wait --team review --all --until gone --json`,
		Flags: []ucli.Flag{
			teamFlag(),
			&ucli.StringSliceFlag{Name: "name", Aliases: []string{"n"}, Usage: "a teammate to wait for (repeat for several)"},
			&ucli.BoolFlag{Name: "all", Usage: "wait for every teammate in the team when the wait starts (the lead excluded)"},
			&ucli.StringFlag{Name: "until", Usage: "the state to wait for: idle, needs-you or gone"},
			&ucli.DurationFlag{Name: "timeout", Usage: "give up after this long (exit 1); 0 waits for ever"},
			&ucli.DurationFlag{Name: "poll", Usage: "safety-net re-read interval (also how soon a dead pane is noticed)", Value: teamwatch.DefaultPoll},
			jsonFlag(),
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			o, err := readWaitOptions(c)
			if err != nil {
				return err
			}
			t, _, err := o.Scope.open(ctx, env)
			if err != nil {
				return err
			}
			w := newTeamWatcher(env, t, readWatchOptions(c))
			defer w.Close()
			return runWait(ctx, env, o, w)
		},
	}
}

func readWaitOptions(c *ucli.Command) (waitOptions, error) {
	if c.NArg() > 0 {
		return waitOptions{}, usagef("wait takes no arguments (got %q): name teammates with --name or use --all", c.Args().First())
	}
	until := teamwatch.State(readFlags(c).String("until"))
	if until == "" {
		return waitOptions{}, usagef("say what to wait for: --until idle, needs-you or gone")
	}
	if teamwatch.CheckUntil(until) != nil {
		return waitOptions{}, usagef("--until %q: use idle, needs-you or gone", readFlags(c).String("until"))
	}
	names := readFlags(c).StringSlice("name")
	switch {
	case readFlags(c).Bool("all") && len(names) > 0:
		return waitOptions{}, usagef("give --name or --all, not both")
	case !readFlags(c).Bool("all") && len(names) == 0:
		return waitOptions{}, usagef("say whom to wait for: --name NAME (repeatable) or --all")
	case readFlags(c).Duration("timeout") < 0 || readFlags(c).Duration("poll") <= 0:
		return waitOptions{}, usagef("--timeout must not be negative and --poll must be positive")
	}
	o := waitOptions{Scope: readTeamScope(c), Goal: teamwatch.Goal{Until: until}, Timeout: readFlags(c).Duration("timeout"), JSON: readFlags(c).Bool("json")}
	if !readFlags(c).Bool("all") {
		o.Goal.Names = names // nil with --all (urfave/cli v3 gives an empty slice)
	}
	return o, nil
}

func runWait(ctx context.Context, env Env, o waitOptions, w *teamwatch.Watcher) error {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	res, err := o.Goal.Wait(ctx, w)
	if res != nil {
		if perr := printWait(env, res, o.JSON); perr != nil && err == nil {
			err = perr
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("timed out after %s waiting for %s: %s not there yet", o.Timeout, o.Goal.Until, res.Missing())
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted while waiting for %s: %s not there yet", o.Goal.Until, res.Missing())
	}
	return err
}

func printWait(env Env, r *teamwatch.WaitResult, asJSON bool) error {
	if asJSON {
		return printJSON(env.Stdout, r)
	}
	if !r.OK {
		return nil // the error says it
	}
	for _, m := range r.Members {
		if _, err := fmt.Fprintf(env.Stdout, "%s: %s\n", visible.Line(m.Name), m.State); err != nil {
			return err
		}
	}
	return nil
}
