package interop

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

// TestClaudeTeammateIdleNoticesSummarise: a real Claude Code
// teammate in a team paneteam leads writes an idle_notification to the
// lead at the end of every turn, and they pile up unread in the file. The
// first time paneteam reads the lead's inbox, it keeps the newest unread
// and moves the older ones to the archive, where 'inbox --archived' shows
// them.
func TestClaudeTeammateIdleNoticesSummarise(t *testing.T) {
	lt := newLedTeam(t, "idle")
	after := lt.api.LastSeq()
	lt.spawnClaude(t, "bob", "bypassPermissions", "You are bob: answer each message with OK.")
	lt.api.WaitMessages(t, wait, after, "You are bob")
	leadInbox := filepath.Join(lt.s.ConfigDir, "teams", lt.name, "inboxes", "team-lead.json")

	const turns = 4
	for n := 1; n <= turns; n++ {
		// Each turn ends with an idle notice; the next message starts the
		// next turn only once this one is written, so the count is exact.
		lt.s.Wait(t, wait, fmt.Sprintf("bob's idle notice number %d in the lead's inbox file", n), func() bool {
			return len(unreadIdleFrom(t, leadInbox, "bob")) >= n
		})
		if n < turns {
			after := lt.api.LastSeq()
			lt.ok(t, "send", "--team", lt.name, "--to", "bob", fmt.Sprintf("message %d", n))
			lt.api.WaitMessages(t, wait, after, fmt.Sprintf("message %d", n))
		}
	}
	if got := len(unreadIdleFrom(t, leadInbox, "bob")); got != turns {
		t.Fatalf("before paneteam reads: %d unread idle notices from bob in the file, want %d (one per turn)", got, turns)
	}

	var shown []mailbox.Message
	out := lt.ok(t, "inbox", "--team", lt.name, "--unread", "--json")
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatalf("inbox --json: %v\n%s", err, out)
	}
	if got := len(idleFrom(shown, "bob")); got != 1 {
		t.Errorf("inbox --unread shows %d idle notices from bob, want 1 (the newest)", got)
	}
	if got := len(unreadIdleFrom(t, leadInbox, "bob")); got != 1 {
		t.Errorf("after paneteam read it, the lead's inbox file holds %d unread idle notices from bob, want 1", got)
	}
	var archived []mailbox.Message
	out = lt.ok(t, "inbox", "--team", lt.name, "--archived", "--json")
	if err := json.Unmarshal([]byte(out), &archived); err != nil {
		t.Fatalf("inbox --archived --json: %v\n%s", err, out)
	}
	if got := len(idleFrom(archived, "bob")); got != turns-1 {
		t.Errorf("inbox --archived shows %d idle notices from bob, want %d", got, turns-1)
	}
}

func idleFrom(msgs []mailbox.Message, from string) []mailbox.Message {
	var out []mailbox.Message
	for _, m := range msgs {
		if p, ok := mailbox.Parse(m.Text); ok && p.Type == mailbox.TypeIdle && m.From == from {
			out = append(out, m)
		}
	}
	return out
}

// unreadIdleFrom reads the inbox file as it is: a plain inbox never
// summarises, and retries a read Claude Code's in-place write tore.
func unreadIdleFrom(t *testing.T, path, from string) []mailbox.Message {
	t.Helper()
	entries, err := mailbox.New(path, lockfile.Options{}).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var unread []mailbox.Message
	for _, m := range entries {
		if !m.Read {
			unread = append(unread, m)
		}
	}
	return idleFrom(unread, from)
}
