package mailbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
)

// decoded is what the decoding path writes for a drain of fresh into old:
// decode, append, then prune's split into the inbox and the archive lines.
func decoded(t testing.TB, old []byte, fresh []Message) (inbox, archive []byte) {
	t.Helper()
	cur, err := decode(old)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	var keep []Message
	var arch bytes.Buffer
	for _, m := range append(cur, fresh...) {
		if !m.Read {
			keep = append(keep, m)
			continue
		}
		b, err := jsonx.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		arch.Write(b)
		arch.WriteByte('\n')
	}
	return encoded(t, keep...), arch.Bytes()
}

func encoded(t testing.TB, msgs ...Message) []byte {
	t.Helper()
	b, err := Encode(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func withUnknown(m Message, key, raw string) Message {
	m.extra.Set(key, json.RawMessage(raw))
	return m
}

func TestSpliceDrainWritesWhatDecodingWould(t *testing.T) {
	a := Message{From: "team-lead", Text: "first <b>&</b> \u2028 \"quoted\"", Timestamp: "2026-11-21T10:00:00.000Z", Color: "blue"}
	b := Message{From: "worker", Text: `{"type":"idle_notification","from":"worker"}`, Summary: "idle", Timestamp: "2026-11-21T10:00:01.000Z"}
	nested := withUnknown(b, "meta", `{"read":true,"list":[1,{"read":true}],"s":"\n    \"read\": true"}`)
	seen := a
	seen.Read = true
	q1 := Message{From: "s1", Text: "hello\nworld 🎉", Timestamp: "2026-11-21T10:00:02.000Z"}
	q2 := Message{From: "s2", Text: "", Summary: "empty text", Timestamp: "2026-11-21T10:00:03.000Z", Color: "green"}
	cases := map[string][]byte{
		"empty inbox":                       []byte("[]"),
		"one message":                       encoded(t, a),
		"protocol message and unknown keys": encoded(t, a, nested),
		"read messages":                     encoded(t, seen, b, withUnknown(seen, "x", `[1,2]`)),
		"only read messages":                encoded(t, seen, seen),
		"a message equal to a queued one":   encoded(t, a, q1),
	}
	for name, old := range cases {
		for _, queued := range [][]Message{{q1}, {q1, q2}, {q1, q1, q2}} {
			t.Run(fmt.Sprintf("%s/%d queued", name, len(queued)), func(t *testing.T) {
				out, arch, ok, err := spliceDrain(old, queued)
				if err != nil || !ok {
					t.Fatalf("spliceDrain: ok=%v err=%v, want it to apply", ok, err)
				}
				wantInbox, wantArch := decoded(t, old, queued)
				if string(out) != string(wantInbox) {
					t.Fatalf("spliced inbox:\n%s\n\ndecoding path:\n%s", out, wantInbox)
				}
				if string(arch) != string(wantArch) {
					t.Fatalf("spliced archive lines:\n%s\ndecoding path:\n%s", arch, wantArch)
				}
			})
		}
	}
}

func TestSpliceDrainLeavesOtherInboxesToDecoding(t *testing.T) {
	q := []Message{{From: "s1", Text: "hi", Timestamp: "2026-11-21T10:00:02.000Z"}}
	unread := Message{From: "a", Text: "new", Timestamp: "2026-11-21T10:00:00.000Z"}
	cases := map[string]string{
		"read spelled in capitals":            "[\n  {\n    \"from\": \"a\",\n    \"READ\": true\n  }\n]",
		"read spelled with escapes":           "[\n  {\n    \"from\": \"a\",\n    \"re\\u0061d\": false\n  }\n]",
		"read that is not a boolean":          "[\n  {\n    \"from\": \"a\",\n    \"read\": 1\n  }\n]",
		"compact layout":                      `[{"from":"a","text":"x","timestamp":"t","read":false}]`,
		"two elements on one line":            "[\n  {\n    \"from\": \"a\"\n  }, {\n    \"from\": \"b\"\n  }\n]",
		"an element closed mid-line":          "[\n  {\n    \"from\": \"a\"},\n  {\n    \"from\": \"b\"\n  }\n]",
		"trailing newline":                    string(encoded(t, unread)) + "\n",
		"a null element":                      "[\n  {\n    \"from\": \"a\"\n  },\n  null,\n  {\n    \"from\": \"b\"\n  }\n]",
		"a number element":                    "[\n  {\n    \"from\": \"a\"\n  },\n  7,\n  {\n    \"from\": \"b\"\n  }\n]",
		"not JSON":                            "[\n  {\n    \"from\": \"a\",\n  }\n]",
		"empty file (Claude Code mid-create)": "",
		"a string element":                    "[\n  {\n    \"from\": \"a\"\n  },\n  \"stray\",\n  {\n    \"from\": \"b\"\n  }\n]",
		"a read message with a number text":   "[\n  {\n    \"from\": \"a\",\n    \"text\": 42,\n    \"read\": true\n  }\n]",
		"an unread one with an object from":   "[\n  {\n    \"from\": {\n      \"x\": 1\n    },\n    \"read\": false\n  }\n]",
		"a wrong type under another case":     "[\n  {\n    \"from\": \"a\",\n    \"Text\": [\n      1\n    ]\n  }\n]",
	}
	for name, old := range cases {
		t.Run(name, func(t *testing.T) {
			if _, _, ok, err := spliceDrain([]byte(old), q); ok || err != nil {
				t.Fatalf("spliceDrain applied (ok=%v, err=%v) to an inbox it must leave to decoding:\n%s", ok, err, old)
			}
		})
	}
}

func FuzzSpliceDrain(f *testing.F) {
	f.Add([]byte("[]"), "hi", false)
	f.Add([]byte("[\n  {\n    \"from\": \"a\",\n    \"text\": \"x\",\n    \"timestamp\": \"t\",\n    \"read\": false\n  }\n]"), "x", true)
	f.Add([]byte("[\n  {\n    \"from\": \"a\",\n    \"read\": true\n  }\n]"), "x", false)
	f.Add([]byte("[\n  {\n    \"x\": {\n      \"read\": true\n    }\n  }\n]"), "y", false)
	f.Add([]byte("[\n  {\n    \"from\": \"a\"\n  },\n  \"stray\",\n  {\n    \"from\": \"b\"\n  }\n]"), "z", false)
	f.Add([]byte("[\n  {\n    \"from\": \"a\",\n    \"text\": 42,\n    \"read\": true\n  }\n]"), "z", false)
	f.Fuzz(func(t *testing.T, old []byte, text string, twice bool) {
		m := Message{From: "fuzz", Text: text, Timestamp: "2026-11-21T10:00:00.000Z"}
		if m.Validate() != nil {
			return
		}
		fresh := []Message{m}
		if twice {
			fresh = append(fresh, m)
		}
		out, arch, ok, err := spliceDrain(old, fresh)
		if err != nil || !ok {
			return
		}
		cur, err := decode(old)
		if err != nil {
			t.Fatalf("spliced an inbox decoding refuses (%v):\n%s", err, old)
		}
		got, err := decode(out)
		if err != nil {
			t.Fatalf("spliced inbox does not decode: %v\n%s", err, out)
		}
		var archived []Message
		for _, line := range bytes.Split(bytes.TrimSuffix(arch, []byte("\n")), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var a Message
			if err := json.Unmarshal(line, &a); err != nil {
				t.Fatalf("archive line does not decode: %v\n%s", err, line)
			}
			archived = append(archived, a)
		}
		var want, wantArchived []Message
		for _, w := range append(cur, fresh...) {
			if w.Read {
				wantArchived = append(wantArchived, w)
			} else {
				want = append(want, w)
			}
		}
		sameMessages(t, "inbox", got, want)
		sameMessages(t, "archive", archived, wantArchived)
		if string(encoded(t, cur...)) == string(old) {
			wantInbox, wantArch := decoded(t, old, fresh)
			if string(out) != string(wantInbox) || string(arch) != string(wantArch) {
				t.Fatalf("spliced:\n%s\n%s\n\ndecoding path:\n%s\n%s", out, arch, wantInbox, wantArch)
			}
		}
	})
}

func sameMessages(t *testing.T, what string, got, want []Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: spliced %d messages, decoding path %d", what, len(got), len(want))
	}
	for i := range got {
		if keyOf(got[i]) != keyOf(want[i]) || got[i].Read != want[i].Read || got[i].Color != want[i].Color {
			t.Fatalf("%s message %d: spliced %+v, decoding path %+v", what, i, got[i], want[i])
		}
	}
}

// A message made in Go is written directly (appendElement); the bytes are
// exactly what the encoder writes for it, whatever its text holds.
func FuzzElement(f *testing.F) {
	f.Add("team-lead", "hello", "", "blue", 1, "message", false, "")
	f.Add("alice", "line\nnext\t\"quoted\" \\ <b>&amp;</b> \u2028 \x7f \x01 é 😀", "sum", "", 0, "", true, "sig==")
	f.Add("", "", "", "", -3, "x", false, "p")
	f.Add("bob", "\xff\xfe not utf-8", "\u2029", "\x1b[31m", 2, "message", false, "")
	f.Fuzz(func(t *testing.T, from, text, summary, color string, msgV int, typ string, read bool, plugin string) {
		m := Message{From: from, Text: text, Summary: summary, Timestamp: "2026-11-23T04:00:00.000Z", Color: color,
			MsgV: msgV, MsgID: "0f8e2a4c-1b2d-4e3f-8a9b-0c1d2e3f4a5b", Type: typ, Read: read, LeadSig: summary, FromPlugin: plugin}
		fast, err := element(m)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := encodedElement(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fast, slow) {
			t.Fatalf("written directly:\n%s\nencoded:\n%s", fast, slow)
		}
	})
}

// The lead's inbox of a team paneteam leads summarises idle notices on
// every write; one with none, and a message that is none, is spliced like
// any other inbox. An idle notice in the file or among the new messages,
// or an escape that could spell one, sends the write to decoding.
func TestNoIdleLetsALeadsInboxSplice(t *testing.T) {
	idle, err := Text(IdleNotification{Type: TypeIdle, From: "alice", Timestamp: "2026-11-21T10:00:02.000Z", IdleReason: IdleAvailable})
	if err != nil {
		t.Fatal(err)
	}
	report := Message{From: "alice", Text: "done: the login page", Timestamp: "2026-11-21T10:00:01.000Z"}
	plain := encoded(t, report)
	withIdle := encoded(t, report, Message{From: "alice", Text: idle, Timestamp: "2026-11-21T10:00:02.000Z"})
	escaped := []byte(strings.Replace(string(plain), "login", `\u006cogin`, 1))
	for _, c := range []struct {
		name  string
		old   []byte
		fresh []Message
		want  bool
	}{
		{"no idle notice", plain, []Message{report}, true},
		{"an empty inbox", []byte("[]"), []Message{report}, true},
		{"an idle notice in the file", withIdle, []Message{report}, false},
		{"an idle notice sent", plain, []Message{{From: "bob", Text: idle}}, false},
		{"an escape in the file", escaped, []Message{report}, false},
	} {
		if got := noIdle(c.old, c.fresh); got != c.want {
			t.Errorf("%s: noIdle = %v, want %v", c.name, got, c.want)
		}
	}
}
