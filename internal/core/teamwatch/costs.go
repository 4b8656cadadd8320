package teamwatch

import (
	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/internal/core/cost"
	"github.com/paneteam/paneteam/team"
)

// costs fills each member's spending and the team's total.
func (s *Snapshot) costs(t team.Team, cfg *team.Config, r *cost.Reader) {
	members, total := r.Team(t, cfg)
	for i := range s.Members {
		if c, ok := members[s.Members[i].Name]; ok {
			s.Members[i].Usage = &c
		}
	}
	s.Usage = &total
	if err := r.Done(); err != nil {
		s.problem(err)
	}
}

// budgets fills each member's budget: one folder of paneteam's state read.
func (s *Snapshot) budgets(opts Options, t team.Team) {
	state, err := provenance.StateDir(opts.getenv)
	if err != nil {
		return
	}
	all := budget.All(state, t)
	for i := range s.Members {
		if b, ok := all[s.Members[i].Name]; ok {
			s.Members[i].Budget = &b
		}
	}
}
