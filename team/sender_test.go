package team

import (
	"strings"
	"testing"
)

func TestReservedSenderNormalises(t *testing.T) {
	for name, want := range map[string]bool{
		"team-lead": true, "Team Lead": true, "TEAM-LEAD": true, "team\u200b-lead": true, "user": true, "System": true,
		"human": false, "alice": false, "team-leader": false, "lead": false,
	} {
		if got := IsLeadSender(name); got != want {
			t.Errorf("%q reserved=%v, want %v", name, got, want)
		}
	}
}

func TestChooseSender(t *testing.T) {
	cfg := &Config{Name: "s", Members: []Member{{Name: LeadName}, {Name: "bob"}}}
	claude := Lead{By: LedByClaude, State: LeadAlive, PID: 9}
	dead := Lead{By: LedByClaude, State: LeadDead, PID: 9}
	for _, tc := range []struct {
		lead                  Lead
		explicit, agent, user string
		from, warn, err       string
	}{
		{claude, "", "", "", DefaultUser, "", ""},
		{claude, "", "", "alex", "alex", "", ""},
		{claude, "", "carol", "alex", "carol", "", ""},
		{claude, "team-lead", "", "", "team-lead", `verified="false"`, ""},
		{claude, "Team Lead", "", "", "Team Lead", `verified="false"`, ""},
		{claude, "zoe", "", "", "zoe", "", ""},
		{claude, "", "", "system", "", "", "reserved"},
		{claude, "", "", "main", "", "", "reserved"},
		{claude, "", "", "Bob", "", "", "member"},
		{claude, "", "team-lead", "", "", "", "agent name \"team-lead\" is a name only Claude Code's lead"},
		{dead, "", "", "", LeadName, "", ""},
		{Lead{By: LedByPaneteam, State: LeadAlive}, "", "carol", "", "carol", "", ""},
		{Lead{By: LedByPaneteam, State: LeadAlive}, "", "", "alex", LeadName, "", ""},
	} {
		ch, err := ChooseSender(cfg, tc.lead, tc.explicit, tc.agent, tc.user)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: err %v, want one naming %q", tc, err, tc.err)
			}
		case err != nil || ch.From != tc.from || (tc.warn == "") != (ch.Warning == "") || !strings.Contains(ch.Warning, tc.warn):
			t.Errorf("%+v: %+v, %v", tc, ch, err)
		}
	}
}
