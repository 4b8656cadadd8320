package team

import (
	"strings"
	"testing"
	"time"
)

func TestNextColorSkipsTakenColours(t *testing.T) {
	rows := func(colors ...string) *Config {
		c := &Config{Name: "t", Members: []Member{{Name: LeadName}}}
		for i, k := range colors {
			c.Members = append(c.Members, Member{Name: string(rune('a' + i)), Color: k})
		}
		return c
	}
	for _, tc := range []struct {
		name   string
		colors []string
		want   string
	}{
		{"first teammate", nil, "red"},
		{"in palette order", []string{"red", "blue"}, "green"},
		// Claude Code gave its own teammates red and green; one left.
		{"a colour Claude's teammate has is skipped", []string{"red", "green"}, "blue"},
		{"a freed colour is given again", []string{"blue", "green", "yellow"}, "red"},
		{"stored in another case", []string{"Red", " blue"}, "green"},
		{"colours outside the palette take none", []string{"#ff0000", "magenta", ""}, "red"},
		{"all taken: round again", []string{"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}, "red"},
		{"second round skips the twice-used", []string{"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan", "red", "green"}, "blue"},
	} {
		if got := rows(tc.colors...).NextColor(); got != tc.want {
			t.Errorf("%s: members %q: NextColor = %s, want %s", tc.name, tc.colors, got, tc.want)
		}
	}
}

// TestAddMemberColours: members added one after another get the palette
// in order, and an added member never takes a colour already worn.
func TestAddMemberColours(t *testing.T) {
	c := &Config{Name: "t", Members: []Member{{Name: LeadName}, {Name: "claudes-own", Color: "blue"}}}
	var got []string
	for _, n := range []string{"a", "b", "c"} {
		m, err := c.AddMember(Member{Name: n})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.Color)
	}
	if got[0] != "red" || got[1] != "green" || got[2] != "yellow" {
		t.Fatalf("colours %q, want red green yellow (blue is worn)", got)
	}
}

// A library caller that adds a member without a time gets the moment it
// joined, not 1970; one that gives a time keeps it.
func TestAddMemberStampsJoinedAt(t *testing.T) {
	c := &Config{Name: "t", Members: []Member{{Name: LeadName}}}
	before := time.Now().UnixMilli()
	m, err := c.AddMember(Member{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if m.JoinedAt < before || m.JoinedAt > time.Now().UnixMilli() {
		t.Fatalf("joinedAt %d, want the time of AddMember (from %d)", m.JoinedAt, before)
	}
	m, err = c.AddMember(Member{Name: "b", JoinedAt: 1234})
	if err != nil {
		t.Fatal(err)
	}
	if m.JoinedAt != 1234 {
		t.Fatalf("joinedAt %d, want the given 1234", m.JoinedAt)
	}
}

// A name that is the lead's or another member's in another spelling (its
// inbox file, or Claude Code's normalised form) is refused, naming the
// clash: a row someone else wrote ("a.b") holds the inbox file a new
// "a-b" would get, and a member behind the lead's inbox reads and marks
// read the lead's messages.
func TestAddMemberRefusesOneNameInTwoSpellings(t *testing.T) {
	cfg := &Config{Name: "crew", LeadAgentID: "team-lead@crew", Members: []Member{
		{Name: LeadName, AgentID: "team-lead@crew"},
		{Name: "a.b", AgentID: "a.b@crew"}, // planted: Claude Code or a teammate wrote it
		{Name: "Reviewer", AgentID: "Reviewer@crew"},
	}}
	for _, tc := range []struct{ name, other string }{
		{"a-b", `member "a.b"`},
		{"A_B", ""}, // another inbox (A_B.json), another name: allowed
		{"team.lead", "reserved"},
		{"Team/Lead", "reserved"},
	} {
		_, err := cfg.AddMember(Member{Name: tc.name})
		switch {
		case tc.other == "" && err != nil:
			t.Errorf("%q: %v; want it added", tc.name, err)
		case tc.other != "" && (err == nil || !strings.Contains(err.Error(), tc.other)):
			t.Errorf("%q: %v; want refused, naming %s", tc.name, err, tc.other)
		}
	}
	// An exact match is still moved aside, as before.
	if m, err := cfg.AddMember(Member{Name: "reviewer"}); err != nil || m.Name != "reviewer-2" {
		t.Errorf("reviewer beside Reviewer: %+v, %v; want reviewer-2", m, err)
	}
	// The lead leadAgentId names counts as the lead, with or without its
	// row (which others can remove).
	other := &Config{Name: "crew", LeadAgentID: "the-boss@crew"}
	if _, err := other.AddMember(Member{Name: "the.boss"}); err == nil || !strings.Contains(err.Error(), "the team's lead") {
		t.Errorf("the.boss where the-boss leads: %v; want refused as the lead's name", err)
	}
}
