package teamwatch

import (
	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/resume"
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

// resumableOf is s's team as Resumable, nil when it is not, by
// resume.Returning: asked only when panes were looked at, and its launch
// records read only for a team whose lead and teammates are all gone.
func resumableOf(opts Options, t team.Team, cfg *team.Config, s *Snapshot) *Resumable {
	if opts.Backend == nil || s.Lead == nil {
		return nil
	}
	gone := map[string]bool{}
	for _, m := range s.Members {
		gone[m.Name] = m.State == StateGone
	}
	var recorded map[string]bool
	members := resume.Returning(cfg, *s.Lead, func(m *team.Member) bool { return gone[m.Name] }, func(name string) bool {
		if recorded == nil {
			recorded = map[string]bool{}
			if state, err := provenance.StateDir(opts.getenv); err == nil {
				recs, _ := launches.Open(state).List(t.Root, t.Name)
				for _, rec := range recs {
					recorded[rec.Agent] = true
				}
			}
		}
		return recorded[name]
	})
	if len(members) == 0 {
		return nil
	}
	return &Resumable{Members: members, Command: remote.Line("paneteam", "resume", "--team", t.Name)}
}
