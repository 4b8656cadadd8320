package cli

import (
	"context"

	"github.com/paneteam/paneteam/internal/core/approval"
)

// The lead side of a team, for the commands that answer requests.

// openLead opens the lead side of the team s names. Only a
// caller acting as the lead (not a process inside a teammate) holds the
// teammates' signing keys, so only it can answer a keyed teammate.
func openLead(ctx context.Context, s teamScope, env Env) (*approval.Lead, error) {
	t, _, err := s.open(ctx, env)
	if err != nil {
		return nil, err
	}
	l := &approval.Lead{Team: t, Lock: s.Lock}
	if !actsAsLead(env) {
		l.Teammate = env.Getenv("PANETEAM_AGENT")
	} else {
		if st, err := env.factory().Keys(); err == nil {
			l.Keys = st
		}
	}
	return l, nil
}
