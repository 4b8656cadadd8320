package teamwatch

import (
	"context"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/internal/panes/backend"
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
// resume.Returning and resume.Gone, the judgement 'paneteam resume'
// itself makes: a member is gone only when its row's pane is (s, already
// asked) and neither the process its launch record names nor the pane
// on the server it was started on runs. So a row others changed in
// config.json (another pane, another socket, a second row of its name)
// never shows a team resumable that resume would not start. The launch
// records are read only once the lead and every row's pane are gone, as
// before: a live team's status, and the status line's, reads none.
func resumableOf(ctx context.Context, opts Options, census *backend.Census, t team.Team, cfg *team.Config, s *Snapshot) *Resumable {
	if opts.Backend == nil || census == nil || s.Lead == nil {
		return nil
	}
	// Every row's pane gone first (the lead's row is gone with the lead,
	// which Returning asks for): until then no record is read.
	for i := range cfg.Members {
		if i >= len(s.Members) || s.Members[i].State != StateGone {
			return nil
		}
	}
	var recs map[string]*launches.Record
	record := func(name string) *launches.Record {
		if recs == nil {
			recs = map[string]*launches.Record{}
			if state, err := provenance.StateDir(opts.getenv); err == nil {
				list, _ := launches.Open(state).List(t.Root, t.Name)
				for i := range list {
					recs[list[i].Agent] = &list[i]
				}
			}
		}
		return recs[name]
	}
	gone := func(m *team.Member) bool { return resume.Gone(ctx, census, cfg, *m, record(m.Name)) }
	members := resume.Returning(cfg, *s.Lead, gone, func(name string) bool { return record(name) != nil })
	if len(members) == 0 {
		return nil
	}
	return &Resumable{Members: members, Command: remote.Line("paneteam", "resume", "--team", t.Name)}
}
