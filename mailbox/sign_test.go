package mailbox_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/encoding/jsjson"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// entries reads an inbox as Claude Code does (JSON.parse), so a test sees
// exactly the strings a teammate verifies.
func entries(t *testing.T, path string) []*jsjson.Object {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsjson.Parse(b)
	if err != nil {
		t.Fatalf("inbox does not parse: %v\n%s", err, b)
	}
	var out []*jsjson.Object
	for _, e := range v.([]any) {
		out = append(out, e.(*jsjson.Object))
	}
	return out
}

func str(o *jsjson.Object, k string) (string, bool) {
	v, ok := o.Get(k)
	s, isStr := v.(string)
	return s, ok && isStr
}

// TestEntriesCarry2_1_330Fields: every entry paneteam writes, by either
// write path, has msgV 1, a fresh UUID msg_id and type "message", and no
// member of the wrong JSON type (Claude Code drops such entries and
// deletes them from the file, docs/PROTOCOL.md §7).
func TestEntriesCarry2_1_330Fields(t *testing.T) {
	in := signInbox(t)
	ctx := context.Background()
	if err := in.Append(ctx, msg("a", "one"), msg("a", "two")); err != nil {
		t.Fatal(err)
	}
	if err := in.Send(ctx, mailbox.Message{From: "b", Text: "three", Timestamp: mailbox.Timestamp(time.Now()), Summary: "s", Color: "red"}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	es := entries(t, in.Path)
	if len(es) != 3 {
		t.Fatalf("%d entries", len(es))
	}
	for _, e := range es {
		if v, _ := e.Get("msgV"); v != float64(1) {
			t.Errorf("msgV %v", v)
		}
		id, _ := str(e, "msg_id")
		if !uuidV4.MatchString(id) || ids[id] {
			t.Errorf("msg_id %q not a fresh UUID v4", id)
		}
		ids[id] = true
		if ty, _ := str(e, "type"); ty != "message" {
			t.Errorf("type %q", ty)
		}
		for _, m := range e.Members {
			switch m.Key {
			case "read":
				if _, ok := m.Value.(bool); !ok {
					t.Errorf("read is %T", m.Value)
				}
			case "msgV":
			default:
				if _, ok := m.Value.(string); !ok {
					t.Errorf("%s is %T (%v)", m.Key, m.Value, m.Value)
				}
			}
		}
		if _, ok := e.Get("lead_sig"); ok {
			t.Error("an inbox without a signer signed")
		}
	}
}

// signInbox is an inbox of its own in a temporary team folder.
func signInbox(t *testing.T) *mailbox.Inbox {
	t.Helper()
	return mailbox.New(filepath.Join(t.TempDir(), "inboxes", "alice.json"), lockfile.Options{Timeout: 5 * time.Second})
}

// TestOddUncheckedFieldsSurvive: Claude Code does not type-check msgV,
// msg_id or lead_sig; an entry with odd values there must still read, and
// a paneteam rewrite must keep it as it was.
func TestOddUncheckedFieldsSurvive(t *testing.T) {
	in := signInbox(t)
	os.MkdirAll(filepath.Dir(in.Path), 0o700)
	odd := `[{"from":"x","text":"odd","timestamp":"2026-01-01T00:00:00.000Z","msgV":"1","msg_id":5,"lead_sig":null,"future":{"a":[1]},"read":false}]`
	os.WriteFile(in.Path, []byte(odd), 0o600)
	got, err := in.ReadAll()
	if err != nil || len(got) != 1 || got[0].Text != "odd" {
		t.Fatalf("ReadAll: %v %v", got, err)
	}
	if err := in.Append(context.Background(), msg("y", "new")); err != nil {
		t.Fatal(err)
	}
	es := entries(t, in.Path)
	want := map[string]any{"msgV": "1", "msg_id": float64(5), "lead_sig": nil}
	for k, w := range want {
		if v, ok := es[0].Get(k); !ok || v != w {
			t.Errorf("%s = %v (%v), want %v", k, v, ok, w)
		}
	}
	if _, ok := es[0].Get("future"); !ok {
		t.Error("an unknown member was dropped")
	}
}

// TestRewriteKeepsClaudeSignatures: an entry Claude Code's lead signed,
// with an empty summary and color (signed as "", not null), still
// verifies after paneteam rewrites the inbox around it.
// msg_ids are version 4 UUIDs, as Claude Code's randomUUID makes, and
// never repeat.
func TestNewMsgIDIsAVersion4UUID(t *testing.T) {
	shape := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for i := 0; i < 10000; i++ {
		id := mailbox.NewMsgID()
		if !shape.MatchString(id) {
			t.Fatalf("%q is not a version 4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("%q repeated", id)
		}
		seen[id] = true
	}
}
