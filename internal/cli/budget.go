package cli

import (
	"context"
	"math"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/core/budget"
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

// usd is a dollar amount as people read it.
func usd(v float64) string { return budget.Dollars(v) }

// budgetGuard is the guard of teammate name of t (budget.NewGuard), its
// log on stderr.
func budgetGuard(env Env, t team.Team, name string, usdLimit float64) (budget.Guard, error) {
	g, err := budget.NewGuard(env.Getenv, t, name, usdLimit)
	g.Log = func(format string, args ...any) { warnf(env, format, args...) }
	return g, err
}

// budgetWatch is the watch of teammate name of t for the process that
// runs it, with usdLimit its own budget (0: the team's alone); stop is
// how it is stopped (budget.Guard.Watch).
func budgetWatch(env Env, t team.Team, name string, usdLimit float64, stop func(ctx context.Context, why string) string) (*budget.Watch, error) {
	g, err := budgetGuard(env, t, name, usdLimit)
	if err != nil {
		return nil, err
	}
	return g.Watch(stop), nil
}

// hasBudget says whether teammate name of t is held to a budget: usd of
// its own, or its team's.
func hasBudget(env Env, t team.Team, usdLimit float64) bool {
	return budget.Held(env.Getenv, t, usdLimit)
}

// watchBudget runs w beside run, the teammate's run (budget.Watch.Beside).
func watchBudget(ctx context.Context, w *budget.Watch, run func(ctx context.Context) error) error {
	return w.Beside(ctx, run)
}
