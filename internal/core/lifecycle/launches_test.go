package lifecycle

import (
	"context"
	"testing"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/team"
)

// TestDepartureForgetsTheLaunch: a member who leaves takes its launch
// record with it, and deleting the team forgets every record of it,
// a teammate Claude's lead started included, never another team's.
func TestDepartureForgetsTheLaunch(t *testing.T) {
	ctx := context.Background()
	tm := newTeam(t)
	addMembers(t, tm, "alice", "bob")
	state := t.TempDir()
	o := Options{Backend: backend.Env{Getenv: func(k string) string {
		if k == "PANETEAM_STATE_DIR" {
			return state
		}
		return ""
	}}}
	store := launches.Open(state)
	for _, r := range []launches.Record{
		{Root: tm.Root, Team: tm.Name, Agent: "alice", Via: launches.ViaSpawnPane, Program: "sleep"},
		{Root: tm.Root, Team: tm.Name, Agent: "bob", Via: launches.ViaSpawnPane, Program: "sleep"},
		{Root: tm.Root, Team: tm.Name, Agent: "routed", Via: launches.ViaRouter, Program: "codex"},
		{Root: tm.Root, Team: "other", Agent: "alice", Via: launches.ViaSpawnPane, Program: "sleep"},
	} {
		if err := store.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := o.Depart(ctx, tm, []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	if recs, _ := store.List(tm.Root, tm.Name); len(recs) != 2 || recs[0].Agent != "bob" || recs[1].Agent != "routed" {
		t.Fatalf("after alice left: %+v, want bob's and routed's", recs)
	}
	if _, err := tm.Update(ctx, o.Lock, func(c *team.Config) error {
		idle := false
		for i := range c.Members {
			c.Members[i].IsActive = &idle
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if res, err := o.Cleanup(ctx, tm, CleanupOptions{}); err != nil || !res.Deleted {
		t.Fatalf("Cleanup: %+v, %v", res, err)
	}
	if recs, _ := store.List(tm.Root, tm.Name); len(recs) != 0 {
		t.Errorf("the deleted team's records are left: %+v", recs)
	}
	if rec, _ := store.Read(tm.Root, "other", "alice"); rec == nil {
		t.Error("another team's record was forgotten")
	}
}
