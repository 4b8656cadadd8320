package mailbox_test

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/mailbox"
)

// eachOf is what Each hands over: every message and the skipped entries.
func eachOf(in *mailbox.Inbox) ([]mailbox.Message, []*mailbox.SkippedEntry, error) {
	var got []mailbox.Message
	skipped, err := in.Each(func() { got = nil }, func(m mailbox.Message) { got = append(got, m) })
	return got, skipped, err
}

// Each reads what Entries reads, entry for entry, skips what it skips and
// fails as it fails, word for word: status and its status line read
// inboxes through Each, and print the same counts and errors as before.
func TestEachReadsWhatEntriesReads(t *testing.T) {
	good := `{"from":"bob","text":"hi","timestamp":"2026-03-01T10:00:00.000Z","read":false,"odd":[1,{"x":2}]}`
	read := `{"from":"bob","text":"old","timestamp":"2026-03-01T10:00:01.000Z","read":true}`
	for name, file := range map[string]string{
		"empty":             "",
		"blank":             " \n",
		"empty array":       "[]",
		"messages":          "[\n  " + good + ",\n  " + read + "\n]",
		"a bad entry":       "[" + good + "," + strings.TrimSpace(badEntry) + "," + read + "]",
		"a number entry":    "[1," + good + "]",
		"null":              "null",
		"an object":         `{"from":"bob"}`,
		"torn":              "[" + good + ",",
		"not JSON":          "hello",
		"after the array":   "[" + good + "] x",
		"a second array":    "[" + good + "][]",
		"a bad entry torn":  "[" + strings.TrimSpace(badEntry) + ",{",
		"nested and quoted": `[{"from":"b]o,b","text":"[\"{\\\"type\\\": 1}\"]","timestamp":"x","read":false}]`,
	} {
		t.Run(name, func(t *testing.T) {
			in := archiveInbox(t)
			if err := os.WriteFile(in.Path, []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
			want, wantSkipped, wantErr := in.Entries()
			got, gotSkipped, gotErr := eachOf(in)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("Each: error %v, Entries: %v", gotErr, wantErr)
			}
			if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("Each read %+v, Entries %+v", got, want)
			}
			if fmt.Sprint(gotSkipped) != fmt.Sprint(wantSkipped) {
				t.Fatalf("Each skipped %v, Entries %v", gotSkipped, wantSkipped)
			}
		})
	}
}

// bigInbox writes an inbox of about size bytes in Claude Code's layout:
// unread messages of 2 KB each, as a teammate nobody reads leaves them.
func bigInbox(t testing.TB, in *mailbox.Inbox, size int) int {
	t.Helper()
	var b strings.Builder
	b.WriteString("[\n")
	n := 0
	for ; b.Len() < size; n++ {
		if n > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  {
    "from": "bob",
    "text": "%s %d",
    "timestamp": "2026-03-01T10:00:00.000Z",
    "color": "blue",
    "read": %t
  }`, strings.Repeat("x", 2000), n, n%3 == 0)
	}
	b.WriteString("\n]")
	if err := os.WriteFile(in.Path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return n
}

// Counting an inbox costs one entry's memory, not the inbox's: the live
// heap while a 40 MB inbox is counted (measured after a collection every
// 500 entries) stays under a bound that does not depend on the size.
// Reading it whole, as Entries does, holds every message at once: over
// 40 MB.
func TestCountingAnInboxTakesBoundedMemory(t *testing.T) {
	const size, bound = 40 << 20, 4 << 20
	in := archiveInbox(t)
	n := bigInbox(t, in, size)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, uint64(0)
	unread, seen := 0, 0
	_, err := in.Each(func() { unread, seen = 0, 0 }, func(m mailbox.Message) {
		if !m.Read {
			unread++
		}
		if seen++; seen%500 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc-min(base, ms.HeapAlloc))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := n - (n+2)/3; unread != want {
		t.Fatalf("counted %d unread, want %d", unread, want)
	}
	if peak > bound {
		t.Fatalf("counting a %d MB inbox held %d KB live, want under %d KB whatever the size",
			size>>20, peak>>10, bound>>10)
	}
	t.Logf("%d entries, %d MB: at most %d KB live", n, size>>20, peak>>10)
}
