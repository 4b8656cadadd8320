package launches

import "testing"

// TestOfLeadFindsTheTeammateInAnyTeam: a resumed lead's teammate is found
// by the lead's session and its name, in whichever team it was started,
// the newest launch winning; another lead's, another root's and another
// name's are not.
func TestOfLeadFindsTheTeammateInAnyTeam(t *testing.T) {
	s := Open(t.TempDir())
	root := t.TempDir()
	for _, r := range []Record{
		{Root: root, Team: "session-aaaa", Agent: "helper", CLI: "claude", Via: ViaRouter, SessionID: "old", ParentSessionID: "lead-1", Started: "2026-01-01T00:00:00Z"},
		{Root: root, Team: "session-bbbb", Agent: "helper", CLI: "claude", Via: ViaRouter, SessionID: "new", ParentSessionID: "lead-1", Started: "2026-01-02T00:00:00Z"},
		{Root: root, Team: "session-cccc", Agent: "helper", CLI: "claude", Via: ViaRouter, SessionID: "other-lead", ParentSessionID: "lead-2", Started: "2026-01-03T00:00:00Z"},
		{Root: t.TempDir(), Team: "session-dddd", Agent: "helper", CLI: "claude", Via: ViaRouter, SessionID: "other-root", ParentSessionID: "lead-1", Started: "2026-01-04T00:00:00Z"},
		{Root: root, Team: "session-eeee", Agent: "helper-2", CLI: "claude", Via: ViaRouter, SessionID: "other-name", ParentSessionID: "lead-1", Started: "2026-01-05T00:00:00Z"},
	} {
		if err := s.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if r := s.OfLead(root, "lead-1", "helper"); r == nil || r.SessionID != "new" {
		t.Errorf("OfLead(lead-1, helper) = %+v, want the newer launch in session-bbbb", r)
	}
	if r := s.OfLead(root, "lead-3", "helper"); r != nil {
		t.Errorf("OfLead of a lead with no teammates = %+v, want nil", r)
	}
	if r := s.OfLead(root, "", "helper"); r != nil {
		t.Errorf("OfLead with no lead session = %+v, want nil", r)
	}
}

// TestByLeadOnePerName: a lead's teammates are listed once each, newest
// launch, by name.
func TestByLeadOnePerName(t *testing.T) {
	s := Open(t.TempDir())
	root := t.TempDir()
	for _, r := range []Record{
		{Root: root, Team: "session-aaaa", Agent: "tester", CLI: "codex", ParentSessionID: "lead-1", Via: ViaRouter, Started: "2026-01-01T00:00:00Z"},
		{Root: root, Team: "session-aaaa", Agent: "helper", CLI: "claude", ParentSessionID: "lead-1", Via: ViaRouter, SessionID: "old", Started: "2026-01-01T00:00:00Z"},
		{Root: root, Team: "session-bbbb", Agent: "helper", CLI: "claude", ParentSessionID: "lead-1", Via: ViaRouter, SessionID: "new", Started: "2026-01-02T00:00:00Z"},
	} {
		if err := s.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	got := s.ByLead(root, "lead-1")
	if len(got) != 2 || got[0].Agent != "helper" || got[0].SessionID != "new" || got[1].Agent != "tester" {
		t.Errorf("ByLead = %+v, want helper (newest) and tester", got)
	}
}
