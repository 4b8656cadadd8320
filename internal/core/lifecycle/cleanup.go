package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/internal/core/cost"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/sys/configdir"
	"github.com/paneteam/paneteam/team"
)

// CleanupOptions tunes Cleanup.
type CleanupOptions struct {
	// Force closes the panes of members still active instead of refusing.
	Force bool
	// DryRun reports what would be done and changes nothing.
	DryRun bool
}

// CleanupResult is what Cleanup did (or, in a dry run, would do).
type CleanupResult struct {
	Team    string      `json:"team"`
	DryRun  bool        `json:"dryRun,omitempty"`
	Members []Departure `json:"members"`
	Server  *Server     `json:"server,omitempty"`
	// Deleted: the team and task folders are gone. A team is kept while a
	// pane could not be closed or a worktree holds work, so a later
	// cleanup can finish the job.
	Deleted bool `json:"deleted"`
}

// ActiveError refuses to delete a team whose members are still working
// (isActive true or absent, as Claude Code counts them).
type ActiveError struct {
	Team  string
	Names []string
}

func (e *ActiveError) Error() string {
	return fmt.Sprintf("team %s still has active members: %s; ask them to shut down first "+
		"(or close their panes anyway by forcing the cleanup)", e.Team, strings.Join(e.Names, ", "))
}

// KeptError says a team was only partly cleaned up, and why.
type KeptError struct {
	Team     string
	Problems []string
}

func (e *KeptError) Error() string {
	return fmt.Sprintf("team %s kept, so that a later cleanup can finish: %s", e.Team, strings.Join(e.Problems, "; "))
}

// Cleanup deletes team t: closes the panes of its members (never the
// lead's, never a pane the backend cannot prove paneteam made), stops the
// private tmux server paneteam started for it once no foreign pane is
// left, removes its members' worktrees fail-closed, and deletes the team
// and task folders. It refuses while members are active, unless Force. If
// a pane could not be closed or a worktree was kept, the team stays with
// just those members (a *KeptError says why) and running Cleanup again
// finishes the job.
func (o Options) Cleanup(ctx context.Context, t team.Team, co CleanupOptions) (*CleanupResult, error) {
	unlock, err := o.lockRoot(ctx, t.Root)
	if err != nil {
		return nil, err
	}
	defer unlock()
	cfg, err := team.Load(t.ConfigPath())
	if err != nil {
		return nil, err
	}
	if lead := team.LeadOf(cfg); lead.By == team.LedByClaude && lead.State != team.LeadDead {
		return nil, &ClaudeTeamError{Team: t.Name, Why: lead.Why}
	}
	if !co.Force {
		var active []string
		for _, m := range cfg.Members {
			if !team.IsLeadName(cfg, m.Name) && m.Active() {
				active = append(active, m.Name)
			}
		}
		if len(active) > 0 {
			return nil, &ActiveError{Team: t.Name, Names: active}
		}
	}
	return o.teardown(ctx, t, cfg, co.DryRun, cfg.Paneteam != nil && cfg.Paneteam.TmuxPrivate, nil)
}

// teardown does the work of Cleanup and of reaping an orphan.
// stopServer says whether the team's tmux server is paneteam's own; del
// deletes the folders (nil: t.Delete). Teammates Claude Code started are
// not paneteam's to close: they are left to Claude Code.
func (o Options) teardown(ctx context.Context, t team.Team, cfg *team.Config, dryRun, stopServer bool, del func() error) (*CleanupResult, error) {
	if del == nil {
		del = t.Delete
	}
	res := &CleanupResult{Team: t.Name, DryRun: dryRun, Members: []Departure{}}
	if !dryRun {
		o.keepSpending(t, cfg) // while the launch records and run folders it reads are there
	}
	var problems []string
	var paneClosed []string
	for i := range cfg.Members {
		m := &cfg.Members[i]
		if team.IsLeadName(cfg, m.Name) || RefuseClaudeTeammate(cfg, m) != nil {
			continue
		}
		d := Departure{Name: m.Name}
		if !dryRun {
			if err := o.closePane(ctx, t, cfg, m); err != nil {
				d.Error = err.Error()
				problems = append(problems, d.Error)
				res.Members = append(res.Members, d)
				continue
			}
			paneClosed = append(paneClosed, m.Name)
			o.forget(t, m.Name)
		}
		d.Worktree = o.removeWorktree(ctx, t, m.Name, m.WorktreePath, dryRun)
		if d.Worktree != nil && d.Worktree.Kept != "" && !d.Worktree.NotOurs {
			problems = append(problems, d.Worktree.Kept)
		}
		d.Removed = d.Error == "" && (d.Worktree == nil || d.Worktree.Removed || d.Worktree.NotOurs)
		res.Members = append(res.Members, d)
	}
	if stopServer && cfg.Paneteam.TmuxSocket != "" {
		ids := agentIDs(cfg)
		ours := func(agent string) bool { return ids[agent] }
		res.Server = stopIfEmpty(ctx, cfg.Paneteam.TmuxSocket, ours, "paneteam's private server for the team, now empty", dryRun)
		if !res.Server.Stopped {
			problems = append(problems, res.Server.Why)
		}
	}
	if dryRun {
		res.Deleted = len(problems) == 0
		return res, nil
	}
	if len(problems) > 0 {
		if _, claudeLed := cfg.LeadProcess(); claudeLed {
			// Under config.json.lock already: left as it is; closing panes
			// again next time is harmless.
			return res, &KeptError{Team: t.Name, Problems: problems}
		}
		return res, errors.Join(o.keepRest(ctx, t, res, paneClosed), &KeptError{Team: t.Name, Problems: problems})
	}
	if err := del(); err != nil {
		return res, err
	}
	res.Deleted = true
	o.forgetMemo(t)
	return res, nil
}

// forgetMemo removes what paneteam's state folder kept of the deleted
// team: the status line's memo of its inboxes (teamwatch's), and every
// launch record of its teammates, Claude's own included (the router's).
func (o Options) forgetMemo(t team.Team) {
	if o.Backend.Getenv == nil {
		return
	}
	state, err := provenance.StateDir(o.Backend.Getenv)
	if err != nil {
		return
	}
	teamwatch.ForgetMemo(state, t.Dir()) //nolint:errcheck // best effort: a memo of a gone team is never read
	store := launches.Open(state)
	recs, _ := store.List(t.Root, t.Name)
	for _, r := range recs {
		store.Forget(t.Root, t.Name, r.Agent) //nolint:errcheck // best effort: a record of a gone team is never read
	}
}

// keepSpending keeps what the team's members spent in paneteam's state
// folder (cost.Keep), so its totals stay readable after it is gone
// ('paneteam status --ended'); best effort, like the memo.
func (o Options) keepSpending(t team.Team, cfg *team.Config) {
	if o.Backend.Getenv == nil {
		return
	}
	state, err := provenance.StateDir(o.Backend.Getenv)
	if err != nil {
		return
	}
	r := cost.NewReader(state, configdir.Dir(o.Backend.Getenv))
	r.Keep(state, t, cfg) //nolint:errcheck // best effort: the team goes either way
	// Its budgets go with it: a new team of the same name starts with none.
	budget.Forget(state, t) //nolint:errcheck // best effort, as above
}

// keepRest records what is left of a team that could not be deleted: the
// members that are fully gone leave config.json; a member whose pane was
// closed but whose worktree was kept stays, idle, so a later cleanup finds
// the worktree again.
func (o Options) keepRest(ctx context.Context, t team.Team, res *CleanupResult, paneClosed []string) error {
	_, err := t.Update(ctx, o.Lock, func(c *team.Config) error {
		for _, d := range res.Members {
			if d.Removed {
				c.RemoveMember(d.Name)
			}
		}
		for _, n := range paneClosed {
			if m := c.Member(n); m != nil {
				idle := false
				m.IsActive = &idle
			}
		}
		return nil
	})
	return err
}

// agentIDs lists the team's members' agent ids: the panes Cleanup may
// close carry one of them in @paneteam-agent.
func agentIDs(cfg *team.Config) map[string]bool {
	ids := map[string]bool{}
	for _, m := range cfg.Members {
		ids[m.AgentID] = true
	}
	return ids
}
