package mailbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/mailbox"
)

// badEntry is an entry another tool wrote with a number where a name
// goes: Claude Code's own schema refuses it too (docs/PROTOCOL.md §7).
const badEntry = `  {
    "from": 42,
    "text": "from a careless tool",
    "timestamp": "2026-03-01T10:00:01.000Z",
    "read": false
  }`

// inboxWithBadEntry writes, in Claude Code's layout, an unread message, the
// bad entry, a read message and another unread one.
func inboxWithBadEntry(t *testing.T) *mailbox.Inbox {
	t.Helper()
	in := archiveInbox(t)
	file := "[\n" + strings.Join([]string{
		`  {
    "from": "bob",
    "text": "first",
    "timestamp": "2026-03-01T10:00:00.000Z",
    "read": false
  }`,
		badEntry,
		`  {
    "from": "bob",
    "text": "already read",
    "timestamp": "2026-03-01T10:00:02.000Z",
    "read": true
  }`,
		`  {
    "from": "carol",
    "text": "second",
    "timestamp": "2026-03-01T10:00:03.000Z",
    "read": false
  }`,
	}, ",\n") + "\n]"
	if err := os.WriteFile(in.Path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	return in
}

func holdsBadEntry(t *testing.T, in *mailbox.Inbox) string {
	t.Helper()
	b, err := os.ReadFile(in.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), badEntry) {
		t.Fatalf("the entry paneteam could not read is no longer in the inbox byte for byte:\n%s", b)
	}
	return string(b)
}

func noneMovedAside(t *testing.T, in *mailbox.Inbox) {
	t.Helper()
	moved, _ := filepath.Glob(in.Path + ".corrupt-*")
	if len(moved) > 0 {
		t.Fatalf("the inbox was moved aside for one entry: %v", moved)
	}
}

func TestOneBadEntryCostsOnlyThatEntry(t *testing.T) {
	ctx := context.Background()
	in := inboxWithBadEntry(t)

	msgs, skipped, err := in.Entries()
	if err != nil {
		t.Fatalf("one bad entry made the whole inbox unreadable: %v", err)
	}
	if got := texts(msgs); got != "first,already read,second" {
		t.Fatalf("read %q, want the three good messages", got)
	}
	if len(skipped) != 1 || skipped[0].Index != 2 || !strings.Contains(skipped[0].Error(), "from") ||
		!strings.Contains(skipped[0].Error(), in.Path) {
		t.Fatalf("the report must name the inbox, the entry (2nd) and its field: %v", skipped)
	}
	if unread, err := in.Unread(); err != nil || texts(unread) != "first,second" {
		t.Fatalf("unread: %q, %v", texts(unread), err)
	}

	// A send appends; the bad entry stays where it was, the read message
	// goes to the archive, and nothing is moved aside.
	if err := in.Send(ctx, msg("dave", "new")); err != nil {
		t.Fatalf("send refused because of another entry: %v", err)
	}
	noneMovedAside(t, in)
	file := holdsBadEntry(t, in)
	if i, j := strings.Index(file, `"first"`), strings.Index(file, `"from": 42`); i < 0 || j < i ||
		strings.Index(file, `"second"`) < j || strings.Index(file, `"new"`) < j {
		t.Fatalf("the bad entry moved from its place between first and second:\n%s", file)
	}
	if msgs, _ := in.ReadAll(); texts(msgs) != "first,second,new" {
		t.Fatalf("after send: %q", texts(msgs))
	}
	if arch, _ := in.Archived(); texts(arch) != "already read" {
		t.Fatalf("archived: %q", texts(arch))
	}

	// Marking read and archiving work for the good ones.
	unread, _ := in.Unread()
	if n, err := in.MarkRead(ctx, unread[:2]); err != nil || n != 2 {
		t.Fatalf("mark read: %d, %v", n, err)
	}
	if err := in.Send(ctx, msg("dave", "newer")); err != nil {
		t.Fatal(err)
	}
	holdsBadEntry(t, in)
	noneMovedAside(t, in)
	if msgs, _ := in.ReadAll(); texts(msgs) != "new,newer" {
		t.Fatalf("after mark read: %q", texts(msgs))
	}
	if arch, _ := in.Archived(); texts(arch) != "already read,first,second" {
		t.Fatalf("archived: %q", texts(arch))
	}

	// Clearing takes the good ones; the bad entry is not paneteam's to drop.
	if err := in.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if got := holdsBadEntry(t, in); got != "[\n"+badEntry+"\n]" {
		t.Fatalf("cleared inbox:\n%s", got)
	}
}

func TestWatchReportsABadEntryOnce(t *testing.T) {
	in := inboxWithBadEntry(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var reports []string
	var typed int
	var got []string
	err := in.Watch(ctx, mailbox.WatchOptions{Poll: 20 * time.Millisecond, PollOnly: true,
		OnError: func(err error) {
			reports = append(reports, err.Error())
			if sk := (*mailbox.SkippedEntry)(nil); errors.As(err, &sk) && sk.Index == 2 {
				typed++
			}
		}}, func(b []mailbox.Message) error {
		got = append(got, texts(b))
		if len(got) == 1 {
			// A change makes the watch read the file again.
			go in.Send(context.Background(), msg("dave", "new"))
			return nil
		}
		return mailbox.ErrStop
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "first,second|new" {
		t.Fatalf("delivered %q", got)
	}
	if len(reports) != 1 || typed != 1 || !strings.Contains(reports[0], "entry 2") {
		t.Fatalf("want the bad entry reported once, got %q", reports)
	}
}

// An entry nested deeper than encoding/json reads (Claude Code's JSON.parse
// reads it) is an entry paneteam cannot read, not an inbox it cannot: the
// others are read, a send appends, and nothing is moved aside.
func TestADeepEntryCostsOnlyThatEntry(t *testing.T) {
	in := archiveInbox(t)
	deep := "  {\n    \"from\": \"bob\",\n    \"text\": \"deep\",\n    \"deep\": " +
		strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n  }"
	file := "[\n  {\n    \"from\": \"bob\",\n    \"text\": \"first\",\n    \"timestamp\": \"2026-03-01T10:00:00.000Z\",\n    \"read\": false\n  },\n" +
		deep + "\n]"
	if err := os.WriteFile(in.Path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	msgs, skipped, err := in.Entries()
	if err != nil {
		t.Fatalf("one deep entry made the whole inbox unreadable: %v", err)
	}
	if texts(msgs) != "first" || len(skipped) != 1 || skipped[0].Index != 2 {
		t.Fatalf("read %q, skipped %v: want first, and entry 2 reported", texts(msgs), skipped)
	}
	if err := in.Send(context.Background(), msg("dave", "new")); err != nil {
		t.Fatalf("send refused because of a deep entry: %v", err)
	}
	noneMovedAside(t, in)
	b, _ := os.ReadFile(in.Path)
	if !strings.Contains(string(b), deep) {
		t.Fatal("the deep entry is no longer in the inbox byte for byte")
	}
	if msgs, _ := in.ReadAll(); texts(msgs) != "first,new" {
		t.Fatalf("after send: %q", texts(msgs))
	}
}
