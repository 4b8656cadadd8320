package mailbox

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The scanner accepts a value exactly when encoding/json does (or sends
// it back to it: too deep), and an entry briefMessage takes decodes into
// Message without error to the same sender, time, read flag and, when
// taken, text.
func FuzzBriefEntry(f *testing.F) {
	for _, s := range []string{`{"from":"a","text":"x_request","timestamp":"t","read":true,"k":[1,-2.5e3,null,{}]}`,
		`{"From":"a"}`, `{"from":"a","from":"b"}`, `{"msgV":01}`, `{"msgV":12,"text":"\u005frequest"}`, `[1,2`, `"a\x"`,
		"{\"from\":\"\xff\"}", `{"read":tru}`, `{"fr\u006fm":"x"}`, `{"fromſ":1}`, `1e`, `-`, `{"text":"idle_notification"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, d []byte) {
		d = bytes.TrimLeft(d, " \t\r\n")
		// A space after: a number at the end of the data may go on.
		dd := append(bytes.Clone(d), ' ')
		end, err := scanValue(dd, 0, 0)
		if err == nil {
			end = skipWS(dd, end)
		}
		valid := json.Valid(d)
		if (err == nil && end == len(dd)) != valid && !(err == errJSON && strings.Count(string(d), "[")+strings.Count(string(d), "{") > maxScanDepth) {
			t.Fatalf("scanner: end %d of %d, %v; json.Valid %t", end, len(d), err, valid)
		}
		if !valid {
			return
		}
		got, ok := briefMessage(bytes.TrimRight(d, " \t\r\n"))
		if !ok {
			return
		}
		var want Message
		if err := json.Unmarshal(d, &want); err != nil {
			t.Fatalf("brief took an entry encoding/json refuses: %v", err)
		}
		if got.From != want.From || got.Timestamp != want.Timestamp || got.Read != want.Read || (got.Text != "" && got.Text != want.Text) {
			t.Fatalf("brief %+v, full %+v", got, want)
		}
		if strings.Contains(want.Text, "_request") && got.Text != want.Text {
			t.Fatalf("brief left a request's text undecoded: %q", want.Text)
		}
	})
}
