package cli

import (
	"fmt"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
	ucli "github.com/urfave/cli/v3"
)

// Following a team as it changes, for the commands that watch it.

// watchOptions are a watching command's --poll and --lock-age (when it
// has them).
type watchOptions struct {
	Poll, LockAge time.Duration
	// Spent are the dollar thresholds of member-spent events (monitor
	// --spent); what each member spends is read at every snapshot then.
	Spent []float64
}

func readWatchOptions(c *ucli.Command) watchOptions {
	return watchOptions{Poll: readFlags(c).Duration("poll"), LockAge: readFlags(c).Duration("lock-age")}
}

// newTeamWatcher follows team t, checking pane liveness as status does,
// and reporting problems it survives once each.
func newTeamWatcher(env Env, t team.Team, o watchOptions) *teamwatch.Watcher {
	opts := stateOptions(env)
	opts.LockAge = o.LockAge
	if len(o.Spent) > 0 {
		if state, err := env.stateDir(); err == nil {
			opts.Cost = costReader(env, state)
		}
	}
	var last string
	return teamwatch.NewWatcher(t, teamwatch.WatchOptions{
		Options: opts,
		Poll:    o.Poll,
		Spent:   o.Spent,
		OnError: func(err error) {
			if msg := err.Error(); msg != last {
				last = msg
				fmt.Fprintf(env.Stderr, "paneteam: warning: %s\n", visible.Line(msg))
			}
		},
	})
}
