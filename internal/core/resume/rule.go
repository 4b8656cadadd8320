package resume

import "github.com/paneteam/paneteam/team"

// Returning is the one rule of which teams can come back, for Check and
// for teamwatch's snapshot: paneteam led the team, its lead process is
// gone (lead, as team.LeadOf judged it), every teammate's pane is gone
// (gone; a pane that runs, or whose state cannot be told, is not), and
// some of them have a launch record to start again from (recorded, asked
// only once every pane is known gone, so a caller may read the records
// then) and share their name with no other row (which Team leaves
// alone). It returns those teammates in the team's order, or nil when
// the team cannot come back. A row named the lead in any spelling is the
// lead's, never a teammate to start.
func Returning(cfg *team.Config, lead team.Lead, gone func(*team.Member) bool, recorded func(name string) bool) []string {
	if lead.By != team.LedByPaneteam || lead.State != team.LeadDead {
		return nil
	}
	var teammates []*team.Member
	for i := range cfg.Members {
		m := &cfg.Members[i]
		if team.IsLeadName(cfg, m.Name) || m.AgentID == cfg.LeadAgentID {
			continue
		}
		if !gone(m) {
			return nil
		}
		teammates = append(teammates, m)
	}
	var back []string
	dups := duplicates(cfg)
	for _, m := range teammates {
		if dups[m.Name] == 0 && recorded(m.Name) {
			back = append(back, m.Name)
		}
	}
	return back
}
