package spawn

import (
	"context"
	"fmt"
	"time"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// addMember adds row under the config lock, where its final name and
// colour are decided, and returns the team as it was before and the row
// as added.
func addMember(ctx context.Context, t team.Team, lock lockfile.Options, row team.Member) (*team.Config, team.Member, error) {
	var before *team.Config
	var m team.Member
	_, err := t.Update(ctx, lock, func(cur *team.Config) error {
		snapshot := *cur
		snapshot.Members = append([]team.Member(nil), cur.Members...)
		before = &snapshot
		row.JoinedAt = time.Now().UnixMilli()
		added, err := cur.AddMember(row)
		if err != nil {
			return err
		}
		m = *added
		return nil
	})
	return before, m, err
}

// forgetMember removes the row addMember added (matched by agent id and
// join time, so a same-named member added since is kept).
func forgetMember(ctx context.Context, t team.Team, lock lockfile.Options, m team.Member) error {
	_, err := t.Update(ctx, lock, func(cur *team.Config) error {
		for i := range cur.Members {
			if cur.Members[i].AgentID == m.AgentID && cur.Members[i].JoinedAt == m.JoinedAt {
				cur.Members = append(cur.Members[:i], cur.Members[i+1:]...)
				return nil
			}
		}
		return team.ErrNoChange
	})
	return err
}

// recordPane writes the started pane and what it runs (the CLI) into the
// member's row, the backend into the team's, and with r.KeepLayout the
// layout.
func recordPane(ctx context.Context, r Request, b backend.Backend, m team.Member, pane backend.Pane, l Prepared) error {
	_, err := r.Team.Update(ctx, r.Lock, func(cur *team.Config) error {
		row := memberByID(cur, m.AgentID)
		if row == nil {
			return fmt.Errorf("%s left the team while its pane started (pane %s is running)", m.Name, pane.ID)
		}
		row.TmuxPaneID, row.BackendType = pane.ID, pane.Backend
		row.Paneteam = pane.Meta
		if row.Paneteam == nil {
			row.Paneteam = &team.MemberMeta{} // marks the member paneteam's (team.Config.RunBy)
		}
		row.Paneteam.Keyed, row.Paneteam.CLI, row.Paneteam.Shutdown = l.Keyed, l.CLI, l.Shutdown
		backend.Record(cur, b)
		if r.KeepLayout {
			backend.KeepLayout(cur, r.Layout)
		}
		return nil
	})
	return err
}

func memberByID(cfg *team.Config, id string) *team.Member {
	for i := range cfg.Members {
		if cfg.Members[i].AgentID == id {
			return &cfg.Members[i]
		}
	}
	return nil
}
