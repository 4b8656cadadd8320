package post_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Which inbox a reader means: the lead's by default, a member's as the
// config spells it, a former member's only while its inbox or archive is
// there.
func TestInboxName(t *testing.T) {
	tm, cfg := paneteamTeam(t)
	in := mailbox.New(tm.InboxPath("carol"), lockfile.Options{})
	if err := in.Send(context.Background(), mailbox.Message{From: "bob", Text: "bye", Timestamp: mailbox.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	var usage *post.UsageError
	for _, tc := range []struct{ name, want, refusal string }{
		{"", team.LeadName, ""},
		{"ALICE", "alice", ""},
		{"carol", "carol", ""},
		{"dave", "", "not a member of team crew and has no inbox (members: team-lead, alice, bob)"},
		{"../..", "", "usage"},
	} {
		got, err := post.InboxName(tm, cfg, tc.name)
		switch {
		case tc.refusal == "" && (err != nil || got != tc.want):
			t.Errorf("%q: %q, %v; want %q", tc.name, got, err, tc.want)
		case tc.refusal == "usage" && !errors.As(err, &usage):
			t.Errorf("%q: %q, %v; want a usage error", tc.name, got, err)
		case tc.refusal != "" && tc.refusal != "usage" && (err == nil || !strings.Contains(err.Error(), tc.refusal)):
			t.Errorf("%q: %q, %v; want refused: %s", tc.name, got, err, tc.refusal)
		}
	}
}

// The mark-read safety rule: never in an inbox Claude Code reads itself.
func TestCheckMarkRead(t *testing.T) {
	_, ours := paneteamTeam(t)
	root := testutil.Root(t)
	_, lead := testutil.LiveClaudeLead(t)
	claudes, err := team.Load(testutil.ClaudeTeam(t, root, "session", lead,
		testutil.ClaudeInProcessTeammate("bob")))
	if err != nil {
		t.Fatal(err)
	}
	var mr *post.MarkReadError
	for _, tc := range []struct {
		cfg     *team.Config
		name    string
		refused bool
	}{
		{ours, team.LeadName, false},
		{ours, "alice", false},
		{claudes, team.LeadName, true},
		{claudes, "bob", true},
		// The lead's inbox in another spelling: team.lead's inbox file
		// is team-lead.json.
		{claudes, "team.lead", true},
		{claudes, "Team Lead", true},
	} {
		err := post.CheckMarkRead(tc.cfg, tc.name)
		if errors.As(err, &mr) != tc.refused {
			t.Errorf("%s's inbox in team %s: %v, want refused %v", tc.name, tc.cfg.Name, err, tc.refused)
		}
	}
	if err := post.CheckMarkRead(claudes, team.LeadName); !errors.As(err, &mr) || !mr.Lead {
		t.Errorf("the Claude lead's inbox: %v", err)
	}
}

func TestUnread(t *testing.T) {
	msgs := []mailbox.Message{{Text: "a", Read: true}, {Text: "b"}, {Text: "c", Read: true}, {Text: "d"}}
	var got []string
	for _, m := range post.Unread(msgs) {
		got = append(got, m.Text)
	}
	if strings.Join(got, ",") != "b,d" || post.Unread(nil) != nil {
		t.Errorf("Unread: %v", got)
	}

}
