package mailbox_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/mailbox"
)

// briefCases are inboxes whose entries a brief read must take exactly as
// encoding/json does, or leave to it: keys in another case or escaped,
// fields of other types, null, duplicates, escapes and markers in texts,
// invalid UTF-8, control characters, deep nesting, and entries that
// straddle the reader's chunks.
func briefCases() map[string]string {
	good := `{"from":"bob","text":"hi","timestamp":"2026-03-01T10:00:00.000Z","read":false,"odd":[1,{"x":2}]}`
	idle := `{"from":"al","text":"{\"type\":\"idle_notification\",\"idleReason\":\"x\"}","timestamp":"2026-03-01T10:00:02Z","read":false}`
	cases := map[string]string{
		"empty": "", "blank": " \n", "empty array": "[]", "null": "null", "torn": "[" + good + ",",
		"not JSON": "hello", "after the array": "[" + good + "] x", "a second array": "[" + good + "][]",
		"trailing comma":    "[" + good + ",]",
		"messages":          "[\n  " + good + ",\n  " + idle + "\n]",
		"a number entry":    "[1," + good + ", true, null, \"s\", [1]]",
		"other case":        `[{"From":"x","TEXT":"y","read":true}]`,
		"fold":              `[{"fromſ":"x"},{"ſummary":"x","from":"k"},{"ReaD":false}]`,
		"escaped key":       `[{"fr\u006fm":"x","text":"y"}]`,
		"duplicate":         `[{"from":"a","from":"b","read":false,"read":true}]`,
		"wrong types":       `[{"from":7},{"read":"no"},{"text":null},{"msgV":1.5,"from":"a"},{"msgV":"1"},{"msgV":-3,"from":"m"},{"summary":[],"from":"s"}]`,
		"escapes":           `[{"from":"b\"o\\b","text":"a\u005frequest \ud83d\ude00 \n","timestamp":"2026-03-01T10:00:00Z"}]`,
		"markers":           `[{"from":"a","text":"x_request"},{"from":"a","text":"\\u0041"},{"from":"a","text":"idle_notification"}]`,
		"bad utf-8":         "[{\"from\":\"a\xffb\",\"text\":\"_request\xfe\",\"read\":false}]",
		"control char":      "[{\"from\":\"a\x01\"}]",
		"bad escape":        `[{"from":"a\x"}]`,
		"bad number":        `[{"n":01}]`,
		"numbers":           `[{"n":-0.5e+10,"m":0,"o":[1E2,-1,2.25]}]`,
		"deep":              "[" + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "]",
		"quite deep":        "[" + strings.Repeat(`{"a":`, 500) + "1" + strings.Repeat("}", 500) + "," + good + "]",
		"literal":           `[{"read":tru}]`,
		"empty object":      `[{}, { } ]`,
		"nested and quoted": `[{"from":"b]o,b","text":"[\"{\\\"type\\\": 1}\"]","timestamp":"x","read":false}]`,
	}
	var big strings.Builder
	big.WriteString("[")
	for i := 0; i < 300; i++ {
		if i > 0 {
			big.WriteString(",\n")
		}
		fmt.Fprintf(&big, `{"from":"a%d","text":"%s\n_request %d","timestamp":"2026-03-01T10:00:00Z","read":%t}`,
			i, strings.Repeat(`\\x\"`, i*97), i, i%2 == 0)
	}
	big.WriteString(`,{"from":"huge","text":"` + strings.Repeat("y", 1<<20) + `"}]`)
	cases["across chunks"] = big.String()
	return cases
}

// sameBrief is whether a brief read of file matches a full one: the same
// errors and skipped entries, and each message's sender, time, read flag,
// and text wherever it names a request or an idle notice.
func sameBrief(t *testing.T, file string) {
	t.Helper()
	in := archiveInbox(t)
	if err := os.WriteFile(in.Path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	want, wantSkipped, wantErr := eachOf(in)
	in.Brief = true
	got, gotSkipped, gotErr := eachOf(in)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || fmt.Sprint(gotSkipped) != fmt.Sprint(wantSkipped) {
		t.Fatalf("brief: %v %v, full: %v %v", gotErr, gotSkipped, wantErr, wantSkipped)
	}
	if len(got) != len(want) {
		t.Fatalf("brief read %d messages, full %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		matters := strings.Contains(w.Text, "_request") || strings.Contains(w.Text, mailbox.TypeIdle)
		if g.From != w.From || g.Timestamp != w.Timestamp || g.Read != w.Read ||
			(g.Text != w.Text && (matters || g.Text != "")) {
			t.Fatalf("message %d: brief %+v, full %+v", i+1, g, w)
		}
	}
	in.Brief = false
}

// A brief read takes what a full one takes, entry for entry.
func TestBriefReadsWhatEachReads(t *testing.T) {
	for name, file := range briefCases() {
		t.Run(name, func(t *testing.T) { sameBrief(t, file) })
	}
}

// A brief read is brief: it scans the entries itself and leaves a text
// that cannot matter undecoded, even in an inbox of escaped, nested and
// straddling entries.
func TestABriefReadLeavesPlainTextsUndecoded(t *testing.T) {
	in := archiveInbox(t)
	in.Brief = true
	file := briefCases()["across chunks"]
	file = file[:len(file)-1] + `,{"from":"z","text":"plain","odd":{"k":[true,null]}}]`
	if err := os.WriteFile(in.Path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _, err := eachOf(in)
	if err != nil || len(got) != 302 {
		t.Fatalf("%d messages, %v", len(got), err)
	}
	if last := got[len(got)-1]; last.From != "z" || last.Text != "" {
		t.Fatalf("last message %+v, want z's text left undecoded", last)
	}
}

// The archive's lines, brief or not, are the same messages.
func TestBriefArchiveReadsWhatTheArchiveReads(t *testing.T) {
	in := archiveInbox(t)
	lines := `{"from":"a","text":"x","read":true}` + "\n" + `{"From":"b","read":1}` + "\n" + `not json` + "\n" +
		`{"from":"c","text":"idle_notification","timestamp":"2026-03-01T10:00:00Z"}` + "\n" + `{"from":"d"`
	if err := os.WriteFile(in.ArchivePath(), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	var want, got []string
	in.EachArchived(func(m mailbox.Message) { want = append(want, fmt.Sprint(m.From, m.Read, m.Timestamp, m.Text)) })
	in.Brief = true
	in.EachArchived(func(m mailbox.Message) {
		if m.Text == "x" {
			t.Errorf("brief archive decoded a text without a marker")
			m.Text = ""
		}
		if m.From == "a" {
			m.Text = "x"
		}
		got = append(got, fmt.Sprint(m.From, m.Read, m.Timestamp, m.Text))
	})
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("brief archive %q, full %q", got, want)
	}
}
