package teamwatch

import (
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
