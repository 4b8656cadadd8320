package teamwatch

import (
	"slices"
	"time"
)

// Spending follows members' estimated costs (Options.Cost) across
// snapshots and tells when one passes a threshold: each threshold once
// per member, from the first snapshot on (what was spent before it is
// not told).
type Spending struct {
	Thresholds []float64 // dollars
	last       map[string]float64
	seen       bool
}

// Events are the thresholds members passed since the last snapshot.
func (sp *Spending) Events(s *Snapshot) []Event {
	if s == nil || len(sp.Thresholds) == 0 {
		return nil
	}
	if sp.last == nil {
		sp.last = map[string]float64{}
	}
	th := slices.Sorted(slices.Values(sp.Thresholds))
	var out []Event
	for _, m := range s.Members {
		if m.Usage == nil || m.Usage.CostUSD == nil {
			continue
		}
		now := *m.Usage.CostUSD
		before := sp.last[m.Name] // a member met later starts from nothing
		sp.last[m.Name] = now
		if !sp.seen {
			continue
		}
		for _, t := range th {
			if before < t && now >= t {
				usd := now
				out = append(out, Event{Time: time.Now(), Kind: KindSpent, Team: s.Team, Who: m.Name, Host: m.Host, CostUSD: &usd, ThresholdUSD: t})
			}
		}
	}
	sp.seen = true
	return out
}
