package teamwatch

import (
	"context"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// TestWhichCLIEachMemberRuns: in a team Claude Code leads, every member
// says what it runs, as status, the dashboard and monitor show it: the
// lead and Claude's own teammates run claude, a member paneteam started
// runs what it recorded, one Claude's lead started through the router is
// told apart from paneteam's, and a plain command runs no CLI.
func TestWhichCLIEachMemberRuns(t *testing.T) {
	meta := func(cli string, routed bool) *team.MemberMeta { return &team.MemberMeta{CLI: cli, Routed: routed} }
	tm := teamtest.New(t, "crew", team.CreateOptions{},
		team.Member{Name: "pane", TmuxPaneID: "%3", BackendType: team.BackendTmux},
		team.Member{Name: "inproc", TmuxPaneID: team.InProcessPaneID, BackendType: team.BackendInProcess},
		team.Member{Name: "routed", TmuxPaneID: "%4", BackendType: team.BackendTmux, Paneteam: meta("codex", true)},
		team.Member{Name: "coder", TmuxPaneID: "%5", BackendType: team.BackendTmux, Paneteam: meta("gemini", false)},
		team.Member{Name: "helper", TmuxPaneID: "%6", BackendType: team.BackendTmux, Paneteam: meta("claude", false)},
		team.Member{Name: "tests", TmuxPaneID: "%7", BackendType: team.BackendTmux, Paneteam: meta("", false)},
		team.Member{Name: "long", TmuxPaneID: "%8", BackendType: team.BackendTmux, Paneteam: meta("my-own-profile-with-a-long-name", false)},
	)
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		c.SetExtra("leadProcess", []byte(`{"pid":4242,"pidSpace":"host#pid:[4026531836]","claimedAt":1767225600000}`))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s, err := Take(context.Background(), tm, Options{MembersOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{ // name: CLI, Runs
		team.LeadName: {"claude", "claude (lead)"},
		"pane":        {"claude", "claude (pane)"},
		"inproc":      {"claude", "claude (in-process)"},
		"routed":      {"codex", "codex (Claude's, pane)"},
		"coder":       {"gemini", "gemini (paneteam)"},
		"helper":      {"claude", "claude (paneteam)"},
		"tests":       {"", "paneteam"},
		"long":        {"my-own-profile-with-a-long-name", "my-own-profile-w… (paneteam)"},
	}
	for name, w := range want {
		m := s.Member(name)
		if m == nil {
			t.Fatalf("no %s in %+v", name, s.Members)
		}
		if m.CLI != w[0] || m.Runs() != w[1] {
			t.Errorf("%s: cli %q, runs %q; want %q, %q", name, m.CLI, m.Runs(), w[0], w[1])
		}
	}

	// monitor: a member joining says what it runs; a plain command says
	// nothing more.
	joined := map[string]Event{}
	for _, e := range Diff(&Snapshot{}, s, 0) {
		if e.Kind == KindJoined {
			joined[e.Who] = e
		}
	}
	if e := joined["routed"]; e.CLI != "codex" || e.What() != "joined the team, runs codex (Claude's, pane)" {
		t.Errorf("routed joined: cli %q, %q", e.CLI, e.What())
	}
	if e := joined["tests"]; e.CLI != "" || e.What() != "joined the team" {
		t.Errorf("tests joined: cli %q, %q", e.CLI, e.What())
	}

	// A team paneteam leads: its lead runs no CLI of its own.
	own := teamtest.New(t, "solo", team.CreateOptions{LeaderPID: 1})
	s, err = Take(context.Background(), own, Options{MembersOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if lead := s.Member(team.LeadName); lead.CLI != "" || lead.Runs() != "lead" {
		t.Errorf("paneteam's lead: cli %q, runs %q; want none, lead", lead.CLI, lead.Runs())
	}
}
