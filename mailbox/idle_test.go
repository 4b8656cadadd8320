package mailbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

func leadInbox(t *testing.T) *mailbox.Inbox {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "inboxes")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return mailbox.New(filepath.Join(dir, "team-lead.json"), lockfile.Options{})
}

// idleMsg is the idle notice a teammate writes at the end of turn n.
func idleMsg(t *testing.T, from string, n int, mod func(*mailbox.IdleNotification)) mailbox.Message {
	t.Helper()
	ts := mailbox.Timestamp(time.Date(2026, 1, 1, 0, 0, n, 0, time.UTC))
	v := mailbox.IdleNotification{Type: mailbox.TypeIdle, From: from, Timestamp: ts,
		IdleReason: mailbox.IdleAvailable, Summary: fmt.Sprintf("turn %d", n)}
	if mod != nil {
		mod(&v)
	}
	text, err := mailbox.Text(v)
	if err != nil {
		t.Fatal(err)
	}
	return mailbox.Message{From: from, Text: text, Timestamp: ts}
}

// idleSummaries lists the summaries of the idle notices in msgs, by sender.
func idleSummaries(msgs []mailbox.Message) map[string][]string {
	out := map[string][]string{}
	for _, m := range msgs {
		if p, ok := mailbox.Parse(m.Text); ok && p.Type == mailbox.TypeIdle {
			out[m.From] = append(out[m.From], p.Value.(*mailbox.IdleNotification).Summary)
		}
	}
	return out
}

func mustUnread(t *testing.T, in *mailbox.Inbox) []mailbox.Message {
	t.Helper()
	u, err := in.Unread()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func mustArchived(t *testing.T, in *mailbox.Inbox) []mailbox.Message {
	t.Helper()
	a, err := in.Archived()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Six idle cycles of one teammate, written by paneteam to the lead of a
// team paneteam leads, leave one unread idle notice (the newest) and the
// five older ones in the archive, read.
func TestIdleNoticesSummariseWhenWritten(t *testing.T) {
	in := leadInbox(t)
	in.SummarisesIdle = true
	ctx := context.Background()
	for n := 1; n <= 6; n++ {
		if err := in.Append(ctx, idleMsg(t, "alice", n, nil)); err != nil {
			t.Fatal(err)
		}
	}
	// Read the file as anyone would, without summarising.
	plain := mailbox.New(in.Path, lockfile.Options{})
	if got := idleSummaries(mustUnread(t, plain))["alice"]; fmt.Sprint(got) != "[turn 6]" {
		t.Errorf("unread idle notices from alice: %q, want only the newest [turn 6]", got)
	}
	arch := mustArchived(t, plain)
	if got := idleSummaries(arch)["alice"]; fmt.Sprint(got) != "[turn 1 turn 2 turn 3 turn 4 turn 5]" {
		t.Errorf("archived idle notices from alice: %q, want turns 1 to 5", got)
	}
	for _, m := range arch {
		if !m.Read {
			t.Errorf("archived notice %s is not marked read", m.Text)
		}
	}
}

// A notice that carries a completed task or a failure stays unread; other
// teammates' notices and other messages are not touched; only notices
// older than the sender's newest idle notice go.
func TestIdleNoticesKeepTasksFailuresAndOthers(t *testing.T) {
	in := leadInbox(t)
	in.SummarisesIdle = true
	ctx := context.Background()
	msgs := []mailbox.Message{
		idleMsg(t, "alice", 1, nil),
		idleMsg(t, "alice", 2, func(v *mailbox.IdleNotification) { v.CompletedTaskID, v.CompletedStatus = "3", "resolved" }),
		idleMsg(t, "bob", 3, nil),
		idleMsg(t, "alice", 4, func(v *mailbox.IdleNotification) { v.IdleReason, v.FailureReason = mailbox.IdleFailed, "boom" }),
		msg("alice", "a plain message"),
		idleMsg(t, "alice", 5, nil),
		idleMsg(t, "alice", 6, nil),
	}
	for _, m := range msgs {
		if err := in.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	unread := mustUnread(t, mailbox.New(in.Path, lockfile.Options{}))
	got := idleSummaries(unread)
	if fmt.Sprint(got["alice"]) != "[turn 2 turn 4 turn 6]" || fmt.Sprint(got["bob"]) != "[turn 3]" {
		t.Errorf("unread idle notices: %q, want alice's task and failure notices and her newest, and bob's", got)
	}
	if len(unread) != 5 {
		t.Errorf("%d unread messages, want 5 (four idle notices and the plain message)", len(unread))
	}
	if got := idleSummaries(mustArchived(t, in))["alice"]; fmt.Sprint(got) != "[turn 1 turn 5]" {
		t.Errorf("archived: %q, want alice's plain turns 1 and 5", got)
	}
}

// Notices another program wrote (a Claude Code teammate writes its own)
// are summarised when paneteam reads them through an inbox that
// summarises; an inbox that does not (a team Claude Code leads) leaves
// them as they are.
func TestIdleNoticesSummariseWhenRead(t *testing.T) {
	in := leadInbox(t)
	var msgs []mailbox.Message
	for n := 1; n <= 6; n++ {
		msgs = append(msgs, idleMsg(t, "alice", n, nil))
	}
	b, err := mailbox.Encode(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in.Path, b, 0o600); err != nil {
		t.Fatal(err)
	}

	if n := len(mustUnread(t, in)); n != 6 {
		t.Fatalf("an inbox that does not summarise reads %d unread, want all 6", n)
	}
	if after, _ := os.ReadFile(in.Path); string(after) != string(b) {
		t.Fatalf("reading without SummarisesIdle changed the file")
	}

	in.SummarisesIdle = true
	unread := mustUnread(t, in)
	if got := idleSummaries(unread)["alice"]; fmt.Sprint(got) != "[turn 6]" {
		t.Errorf("summarising read: unread %q, want [turn 6]", got)
	}
	if n := len(idleSummaries(mustUnread(t, mailbox.New(in.Path, lockfile.Options{})))["alice"]); n != 1 {
		t.Errorf("the file holds %d unread idle notices after the read, want 1", n)
	}
	if n := len(mustArchived(t, in)); n != 5 {
		t.Errorf("%d archived, want 5", n)
	}
}

func TestStaleIdle(t *testing.T) {
	read := idleMsg(t, "alice", 2, nil)
	read.Read = true
	msgs := []mailbox.Message{idleMsg(t, "alice", 1, nil), read, msg("alice", "idle_notification is a word here"), idleMsg(t, "alice", 3, nil)}
	if got := fmt.Sprint(mailbox.StaleIdle(msgs)); got != "[0]" {
		t.Errorf("StaleIdle = %s, want [0] (the read one is not stale, the newest stays)", got)
	}
}

// A reader does not wait for the lock to summarise: while another
// process holds it, the read returns at once with the notices as they
// are, and the next read after the lock is free summarises them.
func TestSummarisingReadDoesNotWaitForTheLock(t *testing.T) {
	in := leadInbox(t)
	var msgs []mailbox.Message
	for n := 1; n <= 3; n++ {
		msgs = append(msgs, idleMsg(t, "alice", n, nil))
	}
	b, _ := mailbox.Encode(msgs)
	if err := os.WriteFile(in.Path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	in.SummarisesIdle = true
	unlock, err := lockfile.Lock(context.Background(), in.Path, lockfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if n := len(mustUnread(t, in)); n != 3 {
		t.Errorf("read under another's lock: %d unread, want the 3 as they are", n)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the read waited %v for the lock", d)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if n := len(mustUnread(t, in)); n != 1 {
		t.Errorf("read after the lock is free: %d unread, want 1", n)
	}
}
