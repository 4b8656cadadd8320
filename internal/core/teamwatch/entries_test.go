package teamwatch

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// A snapshot of a team whose config.json holds a member row of the wrong
// shape and whose inbox holds an entry of the wrong shape counts and shows
// everything else, and names both among its problems.
func TestTakeReportsWhatItCannotReadAndReadsTheRest(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice", "bob")...)
	appendMsg(t, tm, "bob", mailbox.Message{From: "alice", Text: "one"})
	appendMsg(t, tm, "bob", mailbox.Message{From: "alice", Text: "two"})
	b, _ := os.ReadFile(tm.InboxPath("bob"))
	bad := "  {\n    \"from\": 42,\n    \"text\": \"x\",\n    \"timestamp\": \"2026-03-01T10:00:00.000Z\",\n    \"read\": false\n  }"
	b = []byte(strings.Replace(string(b), "[\n", "[\n"+bad+",\n", 1))
	if err := os.WriteFile(tm.InboxPath("bob"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := os.ReadFile(tm.ConfigPath())
	row := "    {\n      \"name\": \"mallory\",\n      \"joinedAt\": \"yesterday\"\n    },\n"
	c = []byte(strings.Replace(string(c), "\"members\": [\n", "\"members\": [\n"+row, 1))
	if err := os.WriteFile(tm.ConfigPath(), c, 0o600); err != nil {
		t.Fatal(err)
	}

	s, err := Take(context.Background(), tm, Options{})
	if err != nil {
		t.Fatalf("one bad row made the team unreadable: %v", err)
	}
	if m := s.Member("bob"); m == nil || m.Unread != 2 || m.InboxError != "" {
		t.Fatalf("bob: %+v, want 2 unread and no inbox error", m)
	}
	if len(s.Members) != 3 {
		t.Fatalf("members: %+v", s.Members)
	}
	all := strings.Join(s.Problems, "\n")
	if len(s.Problems) != 2 || !strings.Contains(all, "member row 1") || !strings.Contains(all, "entry 1") {
		t.Fatalf("problems:\n%s", all)
	}
}
