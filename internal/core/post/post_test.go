package post_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// caller is a process whose environment is vars (KEY=VALUE) and whose
// warnings are collected in warned.
func caller(warned *[]string, vars ...string) post.Caller {
	env := map[string]string{}
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return post.Caller{
		Getenv: func(k string) string { return env[k] },
		Warn:   func(f string, a ...any) { *warned = append(*warned, f) },
	}
}

// paneteamTeam is a team paneteam leads, with members alice (keyed: it
// believes its lead only when signed) and bob.
func paneteamTeam(t *testing.T) (team.Team, *team.Config) {
	t.Helper()
	tm := teamtest.New(t, "crew", team.CreateOptions{LeaderPID: os.Getpid()},
		team.Member{Name: "alice", Color: "blue", Paneteam: &team.MemberMeta{Keyed: true}},
		team.Member{Name: "bob", Color: "green"})
	return tm, teamtest.Load(t, tm)
}

// claudeTeam is a team a live Claude Code process leads, with member bob.
func claudeTeam(t *testing.T) *team.Config {
	t.Helper()
	root := testutil.Root(t)
	_, lead := testutil.LiveClaudeLead(t)
	cfg, err := team.Load(testutil.ClaudeTeam(t, root, "session", lead, testutil.Member{"agentId": "bob@session", "name": "bob"}))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestSenderChoice(t *testing.T) {
	_, ours := paneteamTeam(t)
	claudes := claudeTeam(t)
	tests := []struct {
		name     string
		cfg      *team.Config
		explicit string
		env      []string
		want     string // "" : refused
		warns    bool
	}{
		{"paneteam leads: team-lead", ours, "", nil, team.LeadName, false},
		{"paneteam leads, inside teammate bob: bob", ours, "", []string{"PANETEAM_AGENT=bob"}, "bob", false},
		{"paneteam leads: --from", ours, "carol", []string{"PANETEAM_AGENT=bob"}, "carol", false},
		{"paneteam leads: --from its own teammate", ours, "bob", []string{"PANETEAM_AGENT=bob"}, "bob", false},
		{"Claude leads: the person, human", claudes, "", nil, team.DefaultUser, false},
		{"Claude leads: PANETEAM_USER", claudes, "", []string{"PANETEAM_USER=alex"}, "alex", false},
		{"Claude leads, inside teammate bob: bob", claudes, "", []string{"PANETEAM_AGENT=bob", "PANETEAM_USER=alex"}, "bob", false},
		{"Claude leads: --from team-lead obeyed with a warning", claudes, team.LeadName, nil, team.LeadName, true},
		{"Claude leads: PANETEAM_USER=team-lead refused", claudes, "", []string{"PANETEAM_USER=team-lead"}, "", false},
		{"Claude leads: PANETEAM_USER a member's name refused", claudes, "", []string{"PANETEAM_USER=bob"}, "", false},
		{"Claude leads: PANETEAM_AGENT=team-lead refused", claudes, "", []string{"PANETEAM_AGENT=team-lead"}, "", false},
	}
	for _, tc := range tests {
		var warned []string
		got, err := caller(&warned, tc.env...).Sender(tc.cfg, tc.explicit)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s: sent as %q, want refused", tc.name, got)
		case tc.want != "" && (err != nil || got != tc.want):
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		case tc.warns != (len(warned) > 0):
			t.Errorf("%s: warnings %q", tc.name, warned)
		}
	}
	var warned []string
	if got, _ := caller(&warned, "PANETEAM_AGENT=bob").LeadSender(ours); got != team.LeadName {
		t.Errorf("a prompt in a team paneteam leads is from %q, want team-lead", got)
	}
	if got, _ := caller(&warned, "PANETEAM_AGENT=bob").LeadSender(claudes); got != "bob" {
		t.Errorf("a prompt in a team Claude leads is from %q, want the spawner's own name", got)
	}
}

// TestOpenRefusesWhatAKeyedTeammateWouldNotBelieve: writing as the lead
// to a keyed teammate needs its key; without it nothing is written and the
// error names the fix. With the key the message goes out signed.
func TestOpenRefusesWhatAKeyedTeammateWouldNotBelieve(t *testing.T) {
	tm, cfg := paneteamTeam(t)
	state := t.TempDir()
	var warned []string
	lead := caller(&warned, "PANETEAM_STATE_DIR="+state)

	_, err := lead.Open(tm, cfg, lockfile.Options{}, team.LeadName, []string{"bob", "alice"}, "")
	if err == nil || !strings.Contains(err.Error(), "alice believes team-lead only when signed") || !strings.Contains(err.Error(), "PANETEAM_STATE_DIR") {
		t.Fatalf("unsignable post: %v", err)
	}
	if _, err := lead.Open(tm, cfg, lockfile.Options{}, "bob", []string{"alice"}, ""); err != nil {
		t.Errorf("bob writing to alice needs no signature: %v", err)
	}
	inside := caller(&warned, "PANETEAM_STATE_DIR="+state, "PANETEAM_AGENT=bob")
	if _, err := inside.Open(tm, cfg, lockfile.Options{}, team.LeadName, []string{"alice"}, ""); err != nil || len(warned) != 1 {
		t.Errorf("inside a teammate, as team-lead: %v, warnings %q (want obeyed with one)", err, warned)
	}

	keys, err := provenance.DefaultStore(lead.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Create(tm.InboxPath("alice"), time.Now()); err != nil {
		t.Fatal(err)
	}
	p, err := lead.Open(tm, cfg, lockfile.Options{}, team.LeadName, []string{"alice"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Send(context.Background(), "alice", mailbox.Message{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	msgs, err := mailbox.New(tm.InboxPath("alice"), lockfile.Options{}).ReadAll()
	if err != nil || len(msgs) != 1 || msgs[0].From != team.LeadName || msgs[0].LeadSig == "" {
		t.Errorf("alice's inbox %+v (%v), want one signed message from team-lead", msgs, err)
	}
}

func TestColor(t *testing.T) {
	tm, cfg := paneteamTeam(t)
	var warned []string
	c := caller(&warned, "PANETEAM_STATE_DIR="+t.TempDir())
	p, err := c.Open(tm, cfg, lockfile.Options{}, "bob", []string{"alice"}, "")
	if err != nil || p.Color != "green" {
		t.Errorf("bob's post wears %q (%v), want his team colour green", p.Color, err)
	}
	_, err = c.Open(tm, cfg, lockfile.Options{}, "bob", []string{"alice"}, "mauve")
	var usage *post.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "use one of red") {
		t.Errorf("colour mauve: %v, want a usage error naming the colours", err)
	}
}
