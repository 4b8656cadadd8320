package resume

import (
	"slices"
	"testing"

	"github.com/paneteam/paneteam/team"
)

func TestReturning(t *testing.T) {
	cfg := &team.Config{LeadAgentID: "team-lead@t", Members: []team.Member{
		{Name: "team-lead", AgentID: "team-lead@t"}, {Name: "bob", AgentID: "bob@t"}, {Name: "amy", AgentID: "amy@t"},
	}}
	dead := team.Lead{By: team.LedByPaneteam, State: team.LeadDead}
	all := func(*team.Member) bool { return true }
	for _, c := range []struct {
		name     string
		lead     team.Lead
		gone     func(*team.Member) bool
		recorded []string
		want     []string
	}{
		{"lead gone, panes gone, records", dead, all, []string{"amy", "bob"}, []string{"bob", "amy"}},
		{"only those with a record", dead, all, []string{"amy"}, []string{"amy"}},
		{"no record", dead, all, nil, nil},
		{"a pane runs", dead, func(m *team.Member) bool { return m.Name != "amy" }, []string{"amy", "bob"}, nil},
		{"the lead's own pane does not count", dead, func(m *team.Member) bool { return m.Name != "team-lead" }, []string{"bob"}, []string{"bob"}},
		{"lead alive", team.Lead{By: team.LedByPaneteam, State: team.LeadAlive}, all, []string{"bob"}, nil},
		{"a lead not paneteam's", team.Lead{By: team.LedByClaude, State: team.LeadDead}, all, []string{"bob"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			asked := false
			got := Returning(cfg, c.lead, c.gone, func(name string) bool { asked = true; return slices.Contains(c.recorded, name) })
			if !slices.Equal(got, c.want) {
				t.Errorf("Returning = %q, want %q", got, c.want)
			}
			if c.want == nil && len(c.recorded) > 0 && asked {
				t.Errorf("records were asked for a team that cannot come back")
			}
		})
	}
}

// TestReturningLeavesPlantedRowsOut: rows others wrote in config.json
// never make a team come back with members Team would not start: a
// member with a second row of its name (in some spelling), and a row
// named the lead in another spelling, are no teammates to bring back.
func TestReturningLeavesPlantedRowsOut(t *testing.T) {
	cfg := &team.Config{LeadAgentID: "team-lead@t", Members: []team.Member{
		{Name: "team-lead", AgentID: "team-lead@t"}, {Name: "bob", AgentID: "bob@t"}, {Name: "amy", AgentID: "amy@t"},
		{Name: "Bob", AgentID: "bob@t"}, {Name: "team.lead", AgentID: "team.lead@t"},
	}}
	dead := team.Lead{By: team.LedByPaneteam, State: team.LeadDead}
	gone := func(m *team.Member) bool { return m.Name != "team.lead" } // the planted lead row is not gone: it is the lead's
	got := Returning(cfg, dead, gone, func(string) bool { return true })
	if !slices.Equal(got, []string{"amy"}) {
		t.Errorf("Returning = %q, want only amy (bob has two rows; team.lead is the lead's name)", got)
	}
}
