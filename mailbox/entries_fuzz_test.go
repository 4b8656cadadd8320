package mailbox

import (
	"bytes"
	"testing"
)

// FuzzDecodeInbox: decoding any file never panics; a file that decodes
// encodes again, with every entry it could not read back byte for byte
// and in order, and the messages it could read read the same after the
// trip, which writes the same bytes again.
func FuzzDecodeInbox(f *testing.F) {
	f.Add([]byte(`[{"from":"a","text":"b","timestamp":"t","read":false}]`))
	f.Add([]byte(``))
	f.Add([]byte(`null`))
	f.Add([]byte("[\n  {\n    \"from\": \"a\",\n    \"read\": false\n  },\n  {\n    \"from\": 42\n  },\n  null,\n  {\n    \"from\": \"b\",\n    \"read\": \"no\"\n  }\n]"))
	f.Add([]byte(`[1,"x",[],{"text":{}},{"from":"c","msgV":"one","read":true}]`))
	f.Add([]byte(`[{"from":"\xff","color":null,"FROM":"x","extra":{"a":[1,2]}}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeEntries(b)
		if err != nil {
			return
		}
		out, err := encodeEntries(e.msgs, e.kept)
		if err != nil {
			t.Fatalf("decoded inbox does not encode: %v", err)
		}
		again, err := decodeEntries(out)
		if err != nil {
			t.Fatalf("re-decode: %v\n%s", err, out)
		}
		if len(again.kept) != len(e.kept) {
			t.Fatalf("%d entries kept, %d after a rewrite:\n%s", len(e.kept), len(again.kept), out)
		}
		for i := range e.kept {
			if !bytes.Equal(again.kept[i].Raw, e.kept[i].Raw) {
				t.Fatalf("kept entry %d changed:\n%s\nbecame\n%s", i, e.kept[i].Raw, again.kept[i].Raw)
			}
		}
		if len(again.msgs) != len(e.msgs) {
			t.Fatalf("%d messages, %d after a rewrite:\n%s", len(e.msgs), len(again.msgs), out)
		}
		for i := range e.msgs {
			a, b := e.msgs[i], again.msgs[i]
			if keyOf(a) != keyOf(b) || a.Read != b.Read || a.Color != b.Color || a.MsgID != b.MsgID || a.Type != b.Type {
				t.Fatalf("message %d: %+v became %+v", i, a, b)
			}
		}
		twice, err := encodeEntries(again.msgs, again.kept)
		if err != nil || !bytes.Equal(twice, out) {
			t.Fatalf("a second rewrite changes the inbox (%v):\n%s\n\n%s", err, out, twice)
		}
	})
}
