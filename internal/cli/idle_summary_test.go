package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// idleTexts lists the summaries of the idle notices in msgs from one
// sender.
func idleTexts(msgs []mailbox.Message, from string) []string {
	var out []string
	for _, m := range msgs {
		if p, ok := mailbox.Parse(m.Text); ok && p.Type == mailbox.TypeIdle && m.From == from {
			out = append(out, p.Value.(*mailbox.IdleNotification).Summary)
		}
	}
	return out
}

func inboxJSON(t *testing.T, vars map[string]string, args ...string) []mailbox.Message {
	t.Helper()
	var msgs []mailbox.Message
	out := ptRunTTY(t, vars, false, append([]string{"inbox", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &msgs); err != nil {
		t.Fatalf("inbox --json: %v\n%s", err, out)
	}
	return msgs
}

// In a team paneteam leads, six idle cycles of alice sent with paneteam
// leave the lead one unread idle notice from her; 'inbox --archived'
// still shows the other five. A notice that completes a task stays.
func TestLeadInboxKeepsOneIdleNoticePerTeammate(t *testing.T) {
	_, vars, tm := msgTeam(t)
	send := func(args ...string) {
		t.Helper()
		if _, errs, code := ptRun(t, vars, "", append([]string{"send", "--team", "t", "--to", "team-lead", "--from", "alice",
			"--type", "idle_notification"}, args...)...); code != 0 {
			t.Fatalf("send: exit %d %s", code, errs)
		}
	}
	send("--summary", "task 1 done", "--task-id", "1", "--completed-status", "resolved")
	for n := 1; n <= 6; n++ {
		send("--summary", fmt.Sprintf("turn %d", n))
	}
	// The file itself, as Claude Code or any reader would see it.
	var unread []mailbox.Message
	for _, m := range inboxOf(t, tm, team.LeadName) {
		if !m.Read {
			unread = append(unread, m)
		}
	}
	if got := fmt.Sprint(idleTexts(unread, "alice")); got != "[task 1 done turn 6]" {
		t.Errorf("unread idle notices from alice: %s, want the task's and the newest", got)
	}
	if got := fmt.Sprint(idleTexts(inboxJSON(t, vars, "--team", "t", "--archived"), "alice")); got != "[turn 1 turn 2 turn 3 turn 4 turn 5]" {
		t.Errorf("inbox --archived: alice's idle notices %s, want turns 1 to 5", got)
	}
}

// Notices a teammate wrote itself (as a Claude Code teammate does) are
// summarised when paneteam reads the lead's inbox of a team paneteam
// leads: 'inbox --unread' shows one, and so does the file afterwards.
func TestReadingTheLeadInboxSummarisesIdleNotices(t *testing.T) {
	_, vars, tm := msgTeam(t)
	writeIdleNotices(t, tm.InboxPath(team.LeadName), "alice", 6)
	if got := fmt.Sprint(idleTexts(inboxJSON(t, vars, "--team", "t", "--unread"), "alice")); got != "[turn 6]" {
		t.Errorf("inbox --unread shows alice's idle notices %s, want [turn 6]", got)
	}
	if n := len(idleTexts(inboxJSON(t, vars, "--team", "t", "--archived"), "alice")); n != 5 {
		t.Errorf("%d of alice's notices archived, want 5", n)
	}
}

// A team a live Claude Code process leads is left as Claude Code expects
// it: reading its lead's inbox (inbox, status, monitor --once) changes
// nothing.
func TestClaudeLedInboxIsNotSummarised(t *testing.T) {
	root, vars := ptRootVars(t)
	_, lead := testutil.LiveClaudeLead(t)
	name := "session-0c1d2e3f"
	testutil.ClaudeTeam(t, root, name, lead, testutil.ClaudeInProcessTeammate("alice"))
	path := filepath.Join(root, "teams", name, "inboxes", "team-lead.json")
	before := writeIdleNotices(t, path, "alice", 6)
	if got := len(idleTexts(inboxJSON(t, vars, "--team", name, "--unread"), "alice")); got != 6 {
		t.Errorf("inbox --unread shows %d of alice's idle notices, want all 6", got)
	}
	ptRunTTY(t, vars, false, "status", "--team", name)
	ptRunTTY(t, vars, false, "inbox", "--team", name)
	if after, err := os.ReadFile(path); err != nil || string(after) != string(before) {
		t.Errorf("the lead's inbox of a Claude-led team changed when paneteam read it (err %v)", err)
	}
	if _, err := os.Stat(mailbox.ArchivePath(path)); err == nil {
		t.Errorf("an archive appeared beside the lead's inbox of a Claude-led team")
	}
}

// writeIdleNotices writes n unread idle notices from from straight into
// the inbox file, as another program would, and returns the bytes.
func writeIdleNotices(t *testing.T, path, from string, n int) []byte {
	t.Helper()
	var msgs []mailbox.Message
	for i := 1; i <= n; i++ {
		ts := mailbox.Timestamp(time.Now().Add(time.Duration(i-n) * time.Second))
		text, err := mailbox.Text(mailbox.IdleNotification{Type: mailbox.TypeIdle, From: from, Timestamp: ts,
			IdleReason: mailbox.IdleAvailable, Summary: fmt.Sprintf("turn %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, mailbox.Message{From: from, Text: text, Timestamp: ts})
	}
	b, err := mailbox.Encode(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}
