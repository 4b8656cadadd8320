package mailbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
)

func newInbox(t *testing.T) *Inbox {
	t.Helper()
	return New(filepath.Join(t.TempDir(), "inboxes", "alice.json"), lockfile.Options{Timeout: 5 * time.Second})
}

func msg(from, text string) Message {
	return Message{From: from, Text: text, Timestamp: Timestamp(time.Now())}
}

func TestAppendWritesClaudeLayout(t *testing.T) {
	in := newInbox(t)
	m := Message{From: "team-lead", Text: "review <a> & <b>", Summary: "review", Timestamp: "2026-02-18T18:39:39.925Z", Color: "blue",
		MsgID: "6f9c1d2e-8a7b-4c3d-9e0f-112233445566"}
	if err := in.Append(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(in.Path)
	want := `[
  {
    "from": "team-lead",
    "text": "review <a> & <b>",
    "summary": "review",
    "timestamp": "2026-02-18T18:39:39.925Z",
    "color": "blue",
    "msgV": 1,
    "msg_id": "6f9c1d2e-8a7b-4c3d-9e0f-112233445566",
    "type": "message",
    "read": false
  }
]`
	if string(got) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if js := testutil.JSStringify(t, got); !bytes.Equal(js, got) {
		t.Fatalf("JSON.stringify writes:\n%s", js)
	}
	st, _ := os.Stat(in.Path)
	dst, _ := os.Stat(filepath.Dir(in.Path))
	if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
		t.Fatalf("modes %v %v, want 0600 file in 0700 folder", st.Mode().Perm(), dst.Mode().Perm())
	}
}

func TestTimestampIsISOWithMillis(t *testing.T) {
	ts := Timestamp(time.Date(2026, 2, 18, 18, 39, 39, 925_000_000, time.FixedZone("X", 3600)))
	if ts != "2026-02-18T17:39:39.925Z" {
		t.Fatalf("got %s", ts)
	}
	ts = Timestamp(time.Date(2026, 2, 18, 18, 39, 39, 0, time.UTC))
	if ts != "2026-02-18T18:39:39.000Z" {
		t.Fatalf("zero milliseconds must still be printed, got %s", ts)
	}
}

func TestMarkReadMarksOnlyTheGivenMessages(t *testing.T) {
	in := newInbox(t)
	ctx := context.Background()
	a, b := msg("bob", "one"), msg("bob", "two")
	in.Append(ctx, a, b)
	seen, _ := in.Unread()
	c := msg("carol", "arrived meanwhile")
	in.Append(ctx, c)
	n, err := in.MarkRead(ctx, seen)
	if err != nil || n != 2 {
		t.Fatalf("marked %d, %v; want 2", n, err)
	}
	unread, _ := in.Unread()
	if len(unread) != 1 || unread[0].Text != "arrived meanwhile" {
		t.Fatalf("a message that was never shown was marked read: %+v", unread)
	}
}

func TestMarkReadOfDuplicatesCountsEach(t *testing.T) {
	in := newInbox(t)
	ctx := context.Background()
	m := msg("bob", "same")
	in.Append(ctx, m, m)
	n, _ := in.MarkRead(ctx, []Message{m})
	unread, _ := in.Unread()
	if n != 1 || len(unread) != 1 {
		t.Fatalf("one delivery must mark one of two identical messages: marked %d, %d unread", n, len(unread))
	}
}

func TestClearNeverCreates(t *testing.T) {
	in := newInbox(t)
	if err := in.Clear(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(in.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("Clear created a missing inbox")
	}
	in.Append(context.Background(), msg("a", "x"))
	in.Clear(context.Background())
	if all, _ := in.ReadAll(); len(all) != 0 {
		t.Fatalf("not cleared: %+v", all)
	}
}

func TestCorruptInboxIsMovedAsideNotOverwritten(t *testing.T) {
	in := newInbox(t)
	os.MkdirAll(filepath.Dir(in.Path), 0o700)
	garbage := []byte(`[{"from": "x", "text": "half`)
	os.WriteFile(in.Path, garbage, 0o600)
	err := in.Append(context.Background(), msg("bob", "hello"))
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("want CorruptError, got %v", err)
	}
	if !strings.Contains(err.Error(), ce.MovedTo) {
		t.Fatalf("error must say where the bytes went: %v", err)
	}
	kept, _ := os.ReadFile(ce.MovedTo)
	if !bytes.Equal(kept, garbage) {
		t.Fatalf("moved-aside file lost bytes: %q", kept)
	}
	// The next write starts a fresh inbox.
	if err := in.Append(context.Background(), msg("bob", "again")); err != nil {
		t.Fatal(err)
	}
	if all, _ := in.ReadAll(); len(all) != 1 || all[0].Text != "again" {
		t.Fatalf("fresh inbox: %+v", all)
	}
}

func TestEmptyFileIsAnEmptyInbox(t *testing.T) {
	// Claude Code creates the file with flag "wx" and writes "[]" after:
	// a reader can meet it empty.
	in := newInbox(t)
	os.MkdirAll(filepath.Dir(in.Path), 0o700)
	os.WriteFile(in.Path, nil, 0o600)
	if err := in.Append(context.Background(), msg("bob", "hi")); err != nil {
		t.Fatal(err)
	}
	if all, _ := in.ReadAll(); len(all) != 1 {
		t.Fatalf("got %+v", all)
	}
}

func TestUnknownMessageFieldsSurvive(t *testing.T) {
	in := newInbox(t)
	os.MkdirAll(filepath.Dir(in.Path), 0o700)
	os.WriteFile(in.Path, []byte(`[{"from":"x","text":"t","timestamp":"2026-01-01T00:00:00.000Z","read":false,"priority":"high"}]`), 0o600)
	in.Append(context.Background(), msg("bob", "hi"))
	b, _ := os.ReadFile(in.Path)
	if !strings.Contains(string(b), `"priority": "high"`) {
		t.Fatalf("unknown field lost:\n%s", b)
	}
}

func TestInvalidUTF8IsRefused(t *testing.T) {
	in := newInbox(t)
	err := in.Append(context.Background(), Message{From: "a", Text: "bad \xff", Timestamp: Timestamp(time.Now())})
	if err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("want a UTF-8 refusal, got %v", err)
	}
	if _, err := os.Stat(in.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused message still created the inbox")
	}
}

func TestLargeTextRoundTrips(t *testing.T) {
	in := newInbox(t)
	big := strings.Repeat("line with \"quotes\" and \\ and unicode ✓\n", 50000)
	if err := in.Append(context.Background(), msg("bob", big)); err != nil {
		t.Fatal(err)
	}
	all, _ := in.ReadAll()
	if len(all) != 1 || all[0].Text != big {
		t.Fatal("large text changed on the way")
	}
}

// TestResetArchivesWhatTheInboxHeld: a keyed spawn clears the teammate's
// inbox as Claude Code does; what was in it stays readable in the archive.
func TestResetArchivesWhatTheInboxHeld(t *testing.T) {
	in := New(filepath.Join(testutil.Root(t), "alice.json"), lockfile.Options{})
	ctx := context.Background()
	if err := in.Append(ctx, Message{From: "bob", Text: "left from before", Timestamp: Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	if err := in.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if msgs, err := in.ReadAll(); err != nil || len(msgs) != 0 {
		t.Fatalf("inbox after Reset: %+v %v, want empty", msgs, err)
	}
	arch, err := in.Archived()
	if err != nil || len(arch) != 1 || arch[0].Text != "left from before" {
		t.Fatalf("archive after Reset: %+v %v, want the message it held", arch, err)
	}
}
