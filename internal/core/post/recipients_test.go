package post_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// TestRecipients: who a message goes to, and each refusal's reason,
// before anything is written.
func TestRecipients(t *testing.T) {
	tm, cfg := paneteamTeam(t) // team-lead, alice, bob
	tests := []struct {
		name   string
		from   string
		a      post.Address
		want   string // names joined by ","; "" when refused
		reason string
	}{
		{"a member", team.LeadName, post.Address{To: "alice"}, "alice", ""},
		{"as the config spells it", team.LeadName, post.Address{To: "ALICE"}, "alice", ""},
		{"spaces around the name", team.LeadName, post.Address{To: " bob "}, "bob", ""},
		{"everyone but the sender", "alice", post.Address{To: post.Everyone}, "team-lead,bob", ""},
		{"everyone but the sender, any case", "Alice", post.Address{To: post.Everyone}, "team-lead,bob", ""},
		{"oneself, by a person", "alice", post.Address{To: "alice"}, "alice", ""},
		{"oneself, by a teammate", "alice", post.Address{To: "alice", NotSelf: true}, "", post.Self},
		{"nobody", "alice", post.Address{}, "", post.NoRecipient},
		{"blank", "alice", post.Address{To: "  "}, "", post.NoRecipient},
		{"not a member", team.LeadName, post.Address{To: "mallory"}, "", post.NotMember},
		{"a path is not a member", team.LeadName, post.Address{To: "../alice"}, "", post.NotMember},
		{"a new inbox", team.LeadName, post.Address{To: "mallory", CreateInbox: true}, "mallory", ""},
		{"a new inbox is a member's when it is one", team.LeadName, post.Address{To: "Bob", CreateInbox: true}, "bob", ""},
		{"a new inbox needs a name", team.LeadName, post.Address{To: "../..", CreateInbox: true}, "", post.BadName},
		{"no new inbox for everyone", team.LeadName, post.Address{To: post.Everyone, CreateInbox: true}, "", post.EveryoneNewInbox},
	}
	for _, tc := range tests {
		got, err := post.Recipients(tm, cfg, tc.from, tc.a)
		var re *post.RecipientError
		switch {
		case tc.reason == "" && (err != nil || strings.Join(got, ",") != tc.want):
			t.Errorf("%s: %v, %v; want %s", tc.name, got, err, tc.want)
		case tc.reason != "" && (!errors.As(err, &re) || re.Reason != tc.reason || got != nil):
			t.Errorf("%s: %v, %v; want refused for %q", tc.name, got, err, tc.reason)
		case re != nil && (re.Team != tm.Name || strings.Join(re.Members, ",") != "team-lead,alice,bob"):
			t.Errorf("%s: the refusal names team %q, members %v", tc.name, re.Team, re.Members)
		}
	}
}

// Broadcasting alone in a team reaches nobody, and says so.
func TestRecipientsNobodyElse(t *testing.T) {
	tm := teamtest.New(t, "solo", team.CreateOptions{LeaderPID: os.Getpid()})
	_, err := post.Recipients(tm, teamtest.Load(t, tm), team.LeadName, post.Address{To: post.Everyone})
	var re *post.RecipientError
	if !errors.As(err, &re) || re.Reason != post.NobodyElse || !strings.Contains(err.Error(), "only member of team solo") {
		t.Fatalf("broadcast alone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tm.InboxDir())); err == nil {
		entries, _ := os.ReadDir(tm.InboxDir())
		if len(entries) > 0 {
			t.Fatalf("a refused broadcast wrote %v", entries)
		}
	}
}
