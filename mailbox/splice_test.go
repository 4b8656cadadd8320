package mailbox

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// decoded is what the decoding path writes for a drain of queued into old
// when nothing in old is read: decode, appendMissing, Encode.
func decoded(t testing.TB, old []byte, queued []Message) []byte {
	t.Helper()
	cur, err := decode(old)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	out, err := Encode(appendMissing(cur, queued))
	if err != nil {
		t.Fatal(err)
	}
	return out
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
	m.Fields.Set(key, json.RawMessage(raw))
	return m
}

func TestSpliceAppendWritesWhatDecodingWould(t *testing.T) {
	a := Message{From: "team-lead", Text: "first <b>&</b> \u2028 \"quoted\"", Timestamp: "2026-11-21T10:00:00.000Z", Color: "blue"}
	b := Message{From: "worker", Text: `{"type":"idle_notification","from":"worker"}`, Summary: "idle", Timestamp: "2026-11-21T10:00:01.000Z"}
	nested := withUnknown(b, "meta", `{"read":true,"list":[1,{"read":true}],"s":"\n    \"read\": true"}`)
	q1 := Message{From: "s1", Text: "hello\nworld 🎉", Timestamp: "2026-11-21T10:00:02.000Z"}
	q2 := Message{From: "s2", Text: "", Summary: "empty text", Timestamp: "2026-11-21T10:00:03.000Z", Color: "green"}
	cases := map[string][]byte{
		"empty inbox":                       []byte("[]"),
		"one message":                       encoded(t, a),
		"protocol message and unknown keys": encoded(t, a, nested),
		"a message equal to a queued one":   encoded(t, a, q1),
		"the queued message twice":          encoded(t, q1, q1),
	}
	for name, old := range cases {
		for _, queued := range [][]Message{{q1}, {q1, q2}, {q1, q1, q2}} {
			t.Run(fmt.Sprintf("%s/%d queued", name, len(queued)), func(t *testing.T) {
				out, ok, err := spliceAppend(old, queued)
				if err != nil || !ok {
					t.Fatalf("spliceAppend: ok=%v err=%v, want it to apply", ok, err)
				}
				if want := decoded(t, old, queued); string(out) != string(want) {
					t.Fatalf("spliced:\n%s\n\ndecoding path:\n%s", out, want)
				}
			})
		}
	}
}

func TestSpliceAppendLeavesOtherInboxesToDecoding(t *testing.T) {
	q := []Message{{From: "s1", Text: "hi", Timestamp: "2026-11-21T10:00:02.000Z"}}
	read := Message{From: "a", Text: "seen", Timestamp: "2026-11-21T10:00:00.000Z", Read: true}
	unread := Message{From: "a", Text: "new", Timestamp: "2026-11-21T10:00:00.000Z"}
	cases := map[string]string{
		"a read message":            string(encoded(t, unread, read)),
		"read spelled in capitals":  "[\n  {\n    \"from\": \"a\",\n    \"READ\": true\n  }\n]",
		"read spelled with escapes": "[\n  {\n    \"from\": \"a\",\n    \"re\\u0061d\": false\n  }\n]",
		"read that is not false":    "[\n  {\n    \"from\": \"a\",\n    \"read\": 1\n  }\n]",
		"compact layout":            `[{"from":"a","text":"x","timestamp":"t","read":false}]`,
		"trailing newline":          string(encoded(t, unread)) + "\n",
		"a null element":            "[\n  {\n    \"from\": \"a\"\n  },\n  null,\n  {\n    \"from\": \"b\"\n  }\n]",
		"a number element":          "[\n  {\n    \"from\": \"a\"\n  },\n  7,\n  {\n    \"from\": \"b\"\n  }\n]",
		"not JSON":                  "[\n  {\n    \"from\": \"a\",\n  }\n]",
		"empty file":                "",
	}
	for name, old := range cases {
		t.Run(name, func(t *testing.T) {
			if _, ok, err := spliceAppend([]byte(old), q); ok || err != nil {
				t.Fatalf("spliceAppend applied (ok=%v, err=%v) to an inbox it must leave to decoding:\n%s", ok, err, old)
			}
		})
	}
}

func FuzzSpliceAppend(f *testing.F) {
	f.Add([]byte("[]"), "hi", false)
	f.Add([]byte("[\n  {\n    \"from\": \"a\",\n    \"text\": \"x\",\n    \"timestamp\": \"t\",\n    \"read\": false\n  }\n]"), "x", true)
	f.Add([]byte("[\n  {\n    \"from\": \"a\",\n    \"read\": true\n  }\n]"), "x", false)
	f.Add([]byte("[\n  {\n    \"x\": {\n      \"read\": true\n    }\n  }\n]"), "y", false)
	f.Fuzz(func(t *testing.T, old []byte, text string, twice bool) {
		m := Message{From: "fuzz", Text: text, Timestamp: "2026-11-21T10:00:00.000Z"}
		if m.Validate() != nil {
			return
		}
		queued := []Message{m}
		if twice {
			queued = append(queued, m)
		}
		out, ok, err := spliceAppend(old, queued)
		if err != nil || !ok {
			return
		}
		cur, err := decode(old)
		if err != nil {
			// Valid JSON in the inbox layout that decoding refuses (a
			// field of the wrong type): decoding still refuses it after.
			if _, err2 := decode(out); err2 == nil {
				t.Fatalf("spliced a refused inbox into an accepted one:\n%s", out)
			}
			return
		}
		for _, c := range cur {
			if c.Read {
				t.Fatalf("spliced into an inbox holding a read message:\n%s", old)
			}
		}
		got, err := decode(out)
		if err != nil {
			t.Fatalf("spliced inbox does not decode: %v\n%s", err, out)
		}
		want := appendMissing(cur, queued)
		if len(got) != len(want) {
			t.Fatalf("spliced inbox holds %d messages, decoding path %d", len(got), len(want))
		}
		for i := range got {
			if keyOf(got[i]) != keyOf(want[i]) || got[i].Read != want[i].Read || got[i].Color != want[i].Color ||
				(i < len(cur) && !reflect.DeepEqual(got[i].Fields, want[i].Fields)) {
				t.Fatalf("message %d: spliced %+v, decoding path %+v", i, got[i], want[i])
			}
		}
		if string(encoded(t, cur...)) == string(old) {
			if want := decoded(t, old, queued); string(out) != string(want) {
				t.Fatalf("spliced:\n%s\n\ndecoding path:\n%s", out, want)
			}
		}
	})
}
