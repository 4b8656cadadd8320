package teamwatch

import (
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/protocol/provenance"
	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/team"
)

// Resumable says a team can come back with 'paneteam resume': paneteam
// led it, its lead process is gone, every teammate's pane is gone
// (without a shutdown, which takes members out of the team) and some
// have a launch record to start again from.
type Resumable struct {
	// Members are those a resume would start again.
	Members []string `json:"members"`
	// Command brings the team back, quoted for a POSIX shell (a team
	// name may hold a space or a quote).
	Command string `json:"command"`
}

// resumableOf is s's team as Resumable, nil when it is not: asked only
// when panes were looked at, and its launch records read only for a
// team whose lead and teammates are all gone.
func resumableOf(opts Options, t team.Team, cfg *team.Config, s *Snapshot) *Resumable {
	if opts.Backend == nil || s.Lead == nil || s.Lead.By != team.LedByPaneteam || s.Lead.State != team.LeadDead {
		return nil
	}
	gone := map[string]bool{}
	for _, m := range s.Members {
		if m.Name == team.LeadName || m.AgentID == cfg.LeadAgentID {
			continue
		}
		if m.State != StateGone {
			return nil
		}
		gone[m.Name] = true
	}
	if len(gone) == 0 {
		return nil
	}
	state, err := provenance.StateDir(opts.getenv)
	if err != nil {
		return nil
	}
	recs, _ := launches.Open(state).List(t.Root, t.Name)
	r := &Resumable{Members: []string{}, Command: remote.Line("paneteam", "resume", "--team", t.Name)}
	for _, rec := range recs {
		if gone[rec.Agent] {
			r.Members = append(r.Members, rec.Agent)
		}
	}
	if len(r.Members) == 0 {
		return nil
	}
	return r
}
