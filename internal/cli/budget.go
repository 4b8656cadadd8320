package cli

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/prices"
	"github.com/paneteam/paneteam/internal/protocol/provenance"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// budgetHelp says what --budget is, for every command that takes it.
const budgetHelp = "a spending limit in US dollars (estimated at the price table's prices): at 80% the lead is told, " +
	"past 100% the teammate is asked to stop, then ended. A guard against runaway spending, " +
	"not against a teammate that edits its own transcript"

// budgetFlag is --budget.
func budgetFlag(usage string) ucli.Flag {
	return &ucli.FloatFlag{Name: "budget", Usage: usage}
}

// checkBudget refuses a budget that is not a positive amount (NaN and
// Inf parse as numbers, but no spending could reach or pass them).
func checkBudget(usd float64) error {
	if !validUSD(usd) {
		return usagef("--budget %v: give a positive amount of US dollars, e.g. --budget 5", usd)
	}
	return nil
}

// validUSD says v is a budget: 0 (none) or a finite positive amount.
func validUSD(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }

// budgetGrace is how long a teammate asked to stop has before it is
// ended. PANETEAM_BUDGET_GRACE (a duration) changes it.
func budgetGrace(env Env) time.Duration {
	if d, err := time.ParseDuration(env.Getenv("PANETEAM_BUDGET_GRACE")); err == nil && d >= 0 {
		return d
	}
	return 20 * time.Second
}

// usd is a dollar amount as people read it.
func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 2, 64) }

// budgetWatch is the watch of teammate name of t for the process that
// runs it, with usd its own budget (0: the team's alone). Warn tells the
// lead, in the teammate's name; stop is how it is stopped, and a last
// message tells the lead it was.
func budgetWatch(env Env, t team.Team, name string, usdLimit float64, stop func(ctx context.Context, why string) string) (*budget.Watch, error) {
	state, err := provenance.StateDir(env.Getenv)
	if err != nil {
		return nil, fmt.Errorf("a budget needs paneteam's state folder: %w", err)
	}
	w := &budget.Watch{State: state, Team: t, Name: name, USD: usdLimit, Prices: prices.ConfigDir(env.Getenv),
		Log: func(format string, args ...any) { warnf(env, format, args...) }}
	w.Warn = func(ctx context.Context, s budget.Status) {
		tellLead(ctx, env, t, name, "budget warning", fmt.Sprintf("%s has spent %s of %s %s (%.0f%%); paneteam stops it at %s.",
			name, usd(spent(s)), whose(s, name), usd(s.USD), 100*spent(s)/s.USD, usd(s.USD)))
	}
	w.Stop = func(ctx context.Context, s budget.Status) string {
		ctx = context.WithoutCancel(ctx) // what it says is said even as the teammate's run ends
		why := fmt.Sprintf("over %s %s (%s spent)", whose(s, name), usd(s.USD), usd(spent(s)))
		warnf(env, "%s is %s: stopping it", name, why)
		how := stop(ctx, why)
		tellLead(ctx, env, t, name, "stopped over budget", fmt.Sprintf("%s was stopped: it spent %s, over %s %s; %s.",
			name, usd(spent(s)), whose(s, name), usd(s.USD), how))
		return how
	}
	return w, nil
}

func spent(s budget.Status) float64 {
	if s.SpentUSD == nil {
		return 0
	}
	return *s.SpentUSD
}

func whose(s budget.Status, name string) string {
	if s.Team {
		return "the team's budget of"
	}
	return "its budget of"
}

// tellLead writes the lead a plain message in teammate name's name.
func tellLead(ctx context.Context, env Env, t team.Team, name, summary, text string) {
	_, cfg, err := team.Open(t.Root, t.Name)
	if err != nil {
		warnf(env, "could not tell the lead: %v", err)
		return
	}
	color := ""
	if m := cfg.Member(name); m != nil {
		color = m.Color
	}
	msg := mailbox.Message{From: name, Text: text, Summary: summary, Color: color, Timestamp: mailbox.Timestamp(time.Now())}
	if err := post.OpenInbox(t, cfg, team.LeadName, lockfile.Options{}).Append(ctx, msg); err != nil {
		warnf(env, "could not tell the lead: %v", err)
	}
}

// hasBudget says whether teammate name of t is held to a budget: usd of
// its own, or its team's.
func hasBudget(env Env, t team.Team, usdLimit float64) bool {
	if usdLimit > 0 {
		return true
	}
	state, err := provenance.StateDir(env.Getenv)
	return err == nil && budget.TeamBudget(state, t) > 0
}

// watchBudget runs w beside run (the teammate's run), and once run
// returns, lets a stop under way finish saying what it did (for at most
// 10 seconds); otherwise the watch ends with the run.
func watchBudget(ctx context.Context, w *budget.Watch, run func(ctx context.Context) error) error {
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(wctx) //nolint:errcheck // ends with ctx, or once it stopped the teammate
	}()
	err := run(ctx)
	stopping := make(chan struct{})
	go func() {
		// A Stop under way (it waits for the run's end) is let finish.
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		close(stopping)
	}()
	if !w.Stopping() {
		cancel()
	}
	<-stopping
	cancel()
	return err
}
