package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
)

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
			wt, err := waitTarget(c)
			if err != nil {
				return err
			}
			t, _, err := openTeam(ctx, c, env)
			if err != nil {
				return err
			}
			if d := c.Duration("timeout"); d > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, d)
				defer cancel()
			}
			w := newTeamWatcher(c, env, t)
			defer w.Close()
			res, err := wt.run(ctx, w)
			if res != nil {
				if perr := res.print(env, c.Bool("json")); perr != nil && err == nil {
					err = perr
				}
			}
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				return fmt.Errorf("timed out after %s waiting for %s: %s not there yet", c.Duration("timeout"), wt.until, res.missing())
			case errors.Is(err, context.Canceled):
				return fmt.Errorf("interrupted while waiting for %s: %s not there yet", wt.until, res.missing())
			}
			return err
		},
	}
}

type waitGoal struct {
	until teamwatch.State
	names []string // nil with --all
}

func waitTarget(c *ucli.Command) (*waitGoal, error) {
	if c.NArg() > 0 {
		return nil, usagef("wait takes no arguments (got %q): name teammates with --name or use --all", c.Args().First())
	}
	wt := &waitGoal{until: teamwatch.State(c.String("until"))}
	switch wt.until {
	case teamwatch.StateIdle, teamwatch.StateNeedsYou, teamwatch.StateGone:
	case "":
		return nil, usagef("say what to wait for: --until idle, needs-you or gone")
	default:
		return nil, usagef("--until %q: use idle, needs-you or gone", c.String("until"))
	}
	names := c.StringSlice("name")
	switch {
	case c.Bool("all") && len(names) > 0:
		return nil, usagef("give --name or --all, not both")
	case !c.Bool("all") && len(names) == 0:
		return nil, usagef("say whom to wait for: --name NAME (repeatable) or --all")
	case c.Duration("timeout") < 0 || c.Duration("poll") <= 0:
		return nil, usagef("--timeout must not be negative and --poll must be positive")
	}
	if !c.Bool("all") {
		wt.names = names // nil with --all (urfave/cli v3 gives an empty slice)
	}
	return wt, nil
}

// waitResult is where the wait ended: each teammate's last state.
type waitResult struct {
	Team    string       `json:"team"`
	Until   string       `json:"until"`
	OK      bool         `json:"ok"`
	Members []waitMember `json:"members"`
}

type waitMember struct {
	Name  string `json:"name"`
	State string `json:"state"`
	// Left: it is no longer a member of the team.
	Left bool `json:"left,omitempty"`
}

func (wt *waitGoal) run(ctx context.Context, w *teamwatch.Watcher) (*waitResult, error) {
	s, _, err := w.Next(ctx)
	if err != nil {
		return nil, err
	}
	names, err := wt.targets(s)
	if err != nil {
		return nil, err
	}
	res := &waitResult{Team: s.Team, Until: string(wt.until)}
	for {
		if done, err := wt.check(res, s, names); done || err != nil {
			return res, err
		}
		s, _, err = w.Next(ctx)
		if errors.Is(err, teamwatch.ErrTeamGone) {
			s = &teamwatch.Snapshot{Team: res.Team} // nobody is left
			if done, err := wt.check(res, s, names); done || err != nil {
				return res, err
			}
		}
		if err != nil {
			return res, err
		}
	}
}

// targets are the teammates to wait for, checked against the team as the
// wait starts.
func (wt *waitGoal) targets(s *teamwatch.Snapshot) ([]string, error) {
	if wt.names == nil {
		var all []string
		for _, m := range s.Members {
			if !strings.EqualFold(m.Name, team.LeadName) {
				all = append(all, m.Name)
			}
		}
		if len(all) == 0 && wt.until != teamwatch.StateGone {
			return nil, fmt.Errorf("team %s has no teammates to wait for: spawn one with paneteam spawn-pane", visible.Line(s.Team))
		}
		return all, nil
	}
	var out []string
	for _, n := range wt.names {
		m := s.Member(n)
		if m != nil {
			out = append(out, m.Name)
			continue
		}
		if wt.until != teamwatch.StateGone {
			var members []string
			for _, m := range s.Members {
				members = append(members, visible.Line(m.Name))
			}
			return nil, fmt.Errorf("%q is not a member of team %s (members: %s)", n, visible.Line(s.Team), strings.Join(members, ", "))
		}
		out = append(out, n) // already gone
	}
	return out, nil
}

// check records each teammate's state and reports whether all are there;
// a teammate that left or died fails a wait for idle or needs-you.
func (wt *waitGoal) check(res *waitResult, s *teamwatch.Snapshot, names []string) (bool, error) {
	res.Members = res.Members[:0]
	res.OK = true
	var left []string
	for _, n := range names {
		wm := waitMember{Name: n, State: string(teamwatch.StateGone), Left: true}
		if m := s.Member(n); m != nil {
			wm = waitMember{Name: m.Name, State: string(m.State)}
		}
		res.Members = append(res.Members, wm)
		if wm.State != string(wt.until) {
			res.OK = false
			if wm.State == string(teamwatch.StateGone) {
				left = append(left, visible.Line(n))
			}
		}
	}
	if len(left) > 0 {
		return true, fmt.Errorf("%s left the team (or its pane died) while waiting for %s", strings.Join(left, ", "), wt.until)
	}
	return res.OK, nil
}

// missing names who is not in the wanted state, with its state.
func (r *waitResult) missing() string {
	if r == nil {
		return "the team"
	}
	var out []string
	for _, m := range r.Members {
		if m.State != r.Until {
			out = append(out, fmt.Sprintf("%s (%s)", visible.Line(m.Name), m.State))
		}
	}
	return strings.Join(out, ", ")
}

func (r *waitResult) print(env Env, asJSON bool) error {
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
