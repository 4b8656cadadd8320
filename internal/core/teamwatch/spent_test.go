package teamwatch

import (
	"testing"

	"github.com/paneteam/paneteam/internal/core/cost"
)

func spentSnap(costs map[string]float64) *Snapshot {
	s := &Snapshot{Team: "t"}
	for n, c := range costs {
		c := c
		s.Members = append(s.Members, Member{Name: n, Usage: &cost.Cost{CostUSD: &c}})
	}
	return s
}

func TestSpendingTellsEachThresholdOncePerMember(t *testing.T) {
	sp := Spending{Thresholds: []float64{5, 1}}
	if ev := sp.Events(spentSnap(map[string]float64{"alice": 2})); len(ev) != 0 {
		t.Fatalf("first snapshot: %v, want nothing (spent before monitor started)", ev)
	}
	ev := sp.Events(spentSnap(map[string]float64{"alice": 6, "bob": 1.5}))
	got := map[string][]float64{}
	for _, e := range ev {
		if e.Kind != KindSpent {
			t.Fatalf("kind %s", e.Kind)
		}
		got[e.Who] = append(got[e.Who], e.ThresholdUSD)
	}
	if len(got["alice"]) != 1 || got["alice"][0] != 5 || len(got["bob"]) != 1 || got["bob"][0] != 1 {
		t.Fatalf("got %v, want alice past $5 (not $1 again) and bob, new, past $1", got)
	}
	if ev := sp.Events(spentSnap(map[string]float64{"alice": 7, "bob": 1.6})); len(ev) != 0 {
		t.Fatalf("nothing passed: %v", ev)
	}
	if w := (Event{Kind: KindSpent, Who: "alice", CostUSD: ptr(6.5), ThresholdUSD: 5}).What(); w != "spent over $5.00: $6.50 so far" {
		t.Fatalf("line: %q", w)
	}
}

func ptr(f float64) *float64 { return &f }
