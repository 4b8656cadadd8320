package budget

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/paneteam/paneteam/internal/core/cost"
	"github.com/paneteam/paneteam/internal/core/usage"
	"github.com/paneteam/paneteam/team"
)

// DefaultPoll is how often a Watch reads what was spent: a read of
// nothing new is one lstat per transcript.
const DefaultPoll = time.Second

// Watch follows one teammate's spending against its budget and the
// team's, from its launch record (cost.SourceOf), read as it grows.
type Watch struct {
	State string // paneteam's state folder
	Team  team.Team
	Name  string
	// USD is the member's own budget; 0: the team's alone.
	USD float64
	// Prices is paneteam's config folder (its prices.json), "" for none.
	Prices string
	Poll   time.Duration
	// Warn is called once, when WarnAt of a budget is spent; it tells
	// the lead.
	Warn func(ctx context.Context, s Status)
	// Stop is called once, when a budget is all spent: it asks the
	// teammate to stop, ends it, and says how (Status.Why).
	Stop func(ctx context.Context, s Status) string
	// Log, when set, is told what the watch could not read.
	Log func(format string, args ...any)

	stopping atomic.Bool
}

// Stopping says the budget was spent and the teammate is being stopped.
func (w *Watch) Stopping() bool { return w.stopping.Load() }

// Run watches until the teammate is stopped (nil) or ctx is done.
func (w *Watch) Run(ctx context.Context) error {
	if w.Poll <= 0 {
		w.Poll = DefaultPoll
	}
	r := cost.NewReader(w.State, w.Prices)
	st := Status{USD: w.USD, State: OK, Updated: time.Now()}
	if st.USD <= 0 {
		st.USD, st.Team = TeamBudget(w.State, w.Team), true
	}
	if err := Save(w.State, w.Team, w.Name, st); err != nil {
		w.logf("%v", err)
	}
	var tr *usage.Tracker
	var lastWhy string
	for {
		if tr == nil {
			// The launch record may be written just after the teammate
			// starts: looked for again at each poll.
			if src, err := cost.SourceOf(w.State, w.Team, nil, w.Name); err == nil && src.Unknown == "" {
				tr = &usage.Tracker{Source: src}
			}
		}
		if tr != nil {
			next, why := w.look(tr, r, st)
			if why != "" && why != lastWhy {
				w.logf("%s", why)
			}
			lastWhy = why
			if next.State != st.State || !sameUSD(next.SpentUSD, st.SpentUSD) {
				next.Updated = time.Now()
				switch {
				case next.State == Warned && st.State == OK && w.Warn != nil:
					w.Warn(ctx, next)
				case next.State == Stopped:
					if st.State == OK && w.Warn != nil {
						w.Warn(ctx, Status{USD: next.USD, SpentUSD: next.SpentUSD, State: Warned, Team: next.Team})
					}
					w.stopping.Store(true)
					next.Why = w.over(next)
					Save(w.State, w.Team, w.Name, next) //nolint:errcheck // said below, once stopped
					if w.Stop != nil {
						next.Why += "; " + w.Stop(ctx, next)
					}
					next.Updated = time.Now()
					if err := Save(w.State, w.Team, w.Name, next); err != nil {
						w.logf("%v", err)
					}
					return nil
				}
				st = next
				if err := Save(w.State, w.Team, w.Name, st); err != nil {
					w.logf("%v", err)
				}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(w.Poll):
		}
	}
}

// look is st after reading what was spent since the last look, and why
// a spending is unknown ("" when known).
func (w *Watch) look(tr *usage.Tracker, r *cost.Reader, st Status) (Status, string) {
	spend, err := tr.Read()
	if err != nil {
		return st, fmt.Sprintf("%s's spending: %v", w.Name, err)
	}
	c := r.Priced(spend)
	if c.CostUSD == nil {
		return st, fmt.Sprintf("%s's spending has no price (%v): its budget cannot be held", w.Name, c.Unpriced)
	}
	spent := *c.CostUSD
	st.SpentUSD = &spent
	share := 0.0
	if w.USD > 0 {
		share = spent / w.USD
		st.USD, st.Team = w.USD, false
	}
	if tb := TeamBudget(w.State, w.Team); tb > 0 {
		if ts, ok := w.teamSpent(r); ok && ts/tb > share {
			share = ts / tb
			st.USD, st.Team = tb, true
		}
	}
	switch {
	case share >= 1:
		st.State = Stopped
	case share >= WarnAt && st.State == OK:
		st.State = Warned
	}
	return st, ""
}

// teamSpent is what the whole team has spent, of what is known.
func (w *Watch) teamSpent(r *cost.Reader) (float64, bool) {
	cfg, err := team.Load(w.Team.ConfigPath())
	if err != nil {
		return 0, false
	}
	_, total := r.Team(w.Team, cfg)
	if total.CostUSD == nil {
		return 0, false
	}
	return *total.CostUSD, true
}

// over says which budget was spent.
func (w *Watch) over(s Status) string {
	spent := 0.0
	if s.SpentUSD != nil {
		spent = *s.SpentUSD
	}
	if s.Team {
		return fmt.Sprintf("over the team's budget of $%.2f ($%.2f spent by %s)", s.USD, spent, w.Name)
	}
	return fmt.Sprintf("over its budget of $%.2f ($%.2f spent)", s.USD, spent)
}

func (w *Watch) logf(format string, args ...any) {
	if w.Log != nil {
		w.Log(format, args...)
	}
}

func sameUSD(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
