package cli

import (
	"context"
	"errors"

	"github.com/paneteam/paneteam/internal/protocol/approval"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/protocol/leadinbox"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// tmuxStatusOf is what `status --format tmux` needs and no more: it runs
// for every tmux client every few seconds (status-interval), so it pays
// for one process and, per tmux server the team's panes live on, one
// `list-panes -a` that answers for all of them at once, where asking each
// member's backend costs one tmux client per member (issue 15: 28 ms of
// CPU for a team of 10). It reads config.json, the lead's inbox and
// archive, and the record of answered requests: the segment shows
// busy/idle counts, dead panes, requests waiting for the lead and the
// lead's unread messages (writeTmuxStatus).
func tmuxStatusOf(ctx context.Context, bend backend.Env, teams []loadedTeam) []teamStatus {
	servers := map[string]*serverPanes{}
	var out []teamStatus
	for _, tl := range teams {
		ts := teamStatus{Name: tl.team.Name, Members: []memberStatus{}}
		if tl.err != nil {
			ts.Error = tl.err.Error()
			out = append(out, ts)
			continue
		}
		cfg := tl.cfg
		// The lead's inbox, read once: its unread count, and the requests
		// in it waiting for an answer.
		leadMsgs, leadErr := leadinbox.Open(tl.team, cfg, team.LeadName, lockfile.Options{}).ReadAll()
		var waiting map[string]int
		if leadErr == nil {
			if l, err := approval.FindIn(tl.team, cfg, leadMsgs); err == nil {
				waiting = approval.PerTeammate(l.Waiting())
			}
		}
		for i := range cfg.Members {
			m := &cfg.Members[i]
			ms := memberStatus{Name: m.Name, Active: m.Active(), Waiting: waiting[m.Name]}
			ms.NeedsYou = ms.Waiting > 0
			if m.Name == team.LeadName {
				// The lead's own pane is not shown; its inbox is.
				if leadErr != nil {
					ms.Unread = -1
				}
				for _, msg := range leadMsgs {
					if !msg.Read {
						ms.Unread++
					}
				}
			} else if m.BackendType == team.BackendTmux {
				ms.Pane = tmuxPaneState(ctx, servers, m)
			} else {
				ms.Pane, _ = liveness(ctx, bend, cfg, team.LeadOf(cfg), m, cfg.RunBy(m))
			}
			ts.Members = append(ts.Members, ms)
		}
		out = append(out, ts)
	}
	return out
}

// serverPanes is one tmux server's panes, listed once per run.
type serverPanes struct {
	panes map[string]tmux.Pane
	err   error
}

// tmuxPaneState judges a tmux member's pane as backend.Tmux.Alive does
// (alive when the pane exists, carries the member's agent id and its
// command runs; dead when it is gone, belongs to someone else or its
// server is gone), from its server's one listing.
func tmuxPaneState(ctx context.Context, servers map[string]*serverPanes, m *team.Member) string {
	if m.Paneteam == nil || m.Paneteam.TmuxSocket == "" || m.TmuxPaneID == "" {
		return paneUnknown // not a pane paneteam started
	}
	sp, ok := servers[m.Paneteam.TmuxSocket]
	if !ok {
		sp = &serverPanes{}
		// Not tied to the command's signal handling: a read-only status
		// line may simply end on SIGINT/SIGTERM, and asking for it would
		// install os/signal's watcher (cmd/paneteam's signalContext), a
		// tenth of this command's CPU.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), aliveTimeout)
		panes, err := tmux.Server{Socket: m.Paneteam.TmuxSocket}.AllPanes(ctx)
		cancel()
		if err == nil {
			sp.panes = make(map[string]tmux.Pane, len(panes))
			for _, p := range panes {
				sp.panes[p.ID] = p
			}
		}
		sp.err = err
		servers[m.Paneteam.TmuxSocket] = sp
	}
	switch {
	case errors.Is(sp.err, tmux.ErrNoServer):
		return paneDead
	case sp.err != nil:
		return paneUnknown
	}
	p, ok := sp.panes[m.TmuxPaneID]
	if !ok || p.Agent != m.AgentID || p.Dead {
		return paneDead
	}
	return paneAlive
}
