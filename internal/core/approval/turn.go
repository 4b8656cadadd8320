package approval

import (
	"context"
	"time"

	"github.com/paneteam/paneteam/team"
)

// DefaultTurnWait bounds how long a plan answer waits for its teammate's
// turn to end (Lead.TurnWait).
//
// Observed with Claude Code 2.1.332: its inbox poller decides whether to
// hand a plan answer's message ("[Plan Approved]", "[Plan Rejected] ...")
// to the model at once or to queue it by whether the session was busy
// when that poll began; a queued message is handed over only when the
// session next turns idle. An answer read while the teammate finishes
// the turn in which it submitted the plan can straddle that moment: the
// approval is applied (the teammate leaves plan mode and records its new
// mode in the team's config), but its message waits in memory until the
// teammate's next turn, which nothing starts: the model is never told and
// the teammate sits idle. A person reading the plan seldom answers within
// that turn; a page answering at the first click can.
const DefaultTurnWait = 10 * time.Second

// turnPoll is how often the team's config is read while waiting.
const turnPoll = 50 * time.Millisecond

// turnSettle is how long after its member's isActive turns false a
// session is taken to be idle. Observed with 2.1.332: the Stop hook sets
// isActive false first, then writes the idle_notification, and only after
// the hooks does the session count as idle (an approval written once
// isActive read false, 23 ms before that turn's idle notice, was still
// missed). No file shows that last step; the hooks take tens of
// milliseconds.
const turnSettle = 300 * time.Millisecond

// awaitTurnEnd returns once member name is between turns: Claude Code
// sets the member's isActive to true in the team's config when a turn
// starts and to false when it ends (its Stop hook, which also writes the
// idle_notification), and turnSettle after that the session is idle. A
// member that never recorded either is taken as between turns, so
// teammates that do not write isActive are not held up. After wait it
// returns anyway, false: a teammate still at work on another step gets
// its answer late rather than never.
func (l *Lead) awaitTurnEnd(ctx context.Context, name string, wait time.Duration) bool {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(turnPoll)
	defer tick.Stop()
	for {
		cfg, err := team.Load(l.Team.ConfigPath())
		if err != nil {
			return false // the answer's own load reports it
		}
		m := cfg.Member(name)
		if m == nil || m.IsActive == nil {
			return true
		}
		if !*m.IsActive {
			return settle(ctx)
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return false
		case <-tick.C:
		}
	}
}

// settle waits turnSettle, or until ctx ends (false).
func settle(ctx context.Context) bool {
	t := time.NewTimer(turnSettle)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
