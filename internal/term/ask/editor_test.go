package ask

import (
	"strings"
	"testing"
)

// Texts the tmux bindings must deliver byte for byte (issue 12).
var nasty = []string{
	"dollar $(touch x1) end",
	"back `touch x2` end",
	"it's apostrophe",
	`dq "quoted" end`,
	"#(touch x3)",
	"#{pane_id}",
	"%1 %2 %%",
	`back\slash; semi; \;`,
	"ünïcødé 日本語 🙂 e\u0301",
	"\ttab",
}

func feedAll(t *testing.T, in string) (Outcome, string, int) {
	t.Helper()
	var e Editor
	out, used := e.Feed([]byte(in))
	return out, e.Text(), used
}

func TestEditorKeepsWhatWasTyped(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 1024) // 16 KiB, past any tty line limit
	for _, text := range append(nasty, long) {
		out, got, used := feedAll(t, text+"\r")
		if out != Done || got != text || used != len(text)+1 {
			t.Errorf("typed %q + Enter: outcome %v, text %q, used %d", text, out, got, used)
		}
	}
}

func TestEditorKeys(t *testing.T) {
	cases := []struct {
		name, in, want string
		out            Outcome
	}{
		{"enter as LF", "abc\n", "abc", Done},
		{"backspace", "abx\x7fc\r", "abc", Done},
		{"ctrl-h", "abx\x08c\r", "abc", Done},
		{"backspace removes a whole character", "a日\x7f\r", "a", Done},
		{"backspace on empty", "\x7f\x7fa\r", "a", Done},
		{"ctrl-u", "junk\x15ok\r", "ok", Done},
		{"ctrl-w", "one two  \x17three\r", "one three", Done},
		{"ctrl-c", "abc\x03", "abc", Canceled},
		{"ctrl-d on empty", "\x04", "", Canceled},
		{"ctrl-d ignored mid-line", "a\x04b\r", "ab", Done},
		{"arrows ignored", "a\x1b[Db\x1b[A\x1bOHc\r", "abc", Done},
		{"alt-key ignored", "a\x1bxb\r", "ab", Done},
		{"other controls dropped", "a\x01\x02\x07b\r", "ab", Done},
		{"bracketed paste keeps newlines", "say: \x1b[200~line 1\r\nline 2\rline 3\nend\x1b[201~!\r", "say: line 1\nline 2\nline 3\nend!", Done},
		{"ctrl-c inside a paste is text, dropped", "\x1b[200~a\x03b\x1b[201~\r", "ab", Done},
		{"esc inside a paste", "\x1b[200~a\x1b[Ab\x1b[201~\r", "ab", Done},
	}
	for _, c := range cases {
		out, got, _ := feedAll(t, c.in)
		if out != c.out || got != c.want {
			t.Errorf("%s: %q gave outcome %v, text %q; want %v, %q", c.name, c.in, out, got, c.out, c.want)
		}
	}
}

func TestEditorLoneEscCancels(t *testing.T) {
	var e Editor
	if out, _ := e.Feed([]byte("abc\x1b")); out != Editing || !e.PendingEsc() {
		t.Fatalf("ESC at the end: outcome %v, pending %v", out, e.PendingEsc())
	}
	if out := e.EscTimeout(); out != Canceled {
		t.Errorf("lone ESC then nothing: %v, want Canceled", out)
	}
	var p Editor
	p.Feed([]byte("\x1b[200~a\x1b"))
	if p.PendingEsc() {
		t.Error("an ESC inside a paste counted as the Esc key")
	}
}

// Bytes typed ahead of Enter belong to the next question.
func TestEditorStopsAtEnter(t *testing.T) {
	var e Editor
	out, used := e.Feed([]byte("alice\rhello\r"))
	if out != Done || e.Text() != "alice" || used != 6 {
		t.Errorf("outcome %v, text %q, used %d", out, e.Text(), used)
	}
}

// A character split across two reads is kept whole.
func TestEditorSplitUTF8(t *testing.T) {
	var e Editor
	b := []byte("é日🙂")
	for i := range b {
		e.Feed(b[i : i+1])
		_ = tail(e.Text(), 20) // drawing half a character must not break it
	}
	if e.Text() != "é日🙂" {
		t.Errorf("got %q", e.Text())
	}
}

func TestTail(t *testing.T) {
	cases := []struct {
		text string
		cols int
		want string
	}{
		{"short", 10, "short"},
		{"0123456789abc", 10, "…456789abc"},
		{"日本語日本語", 7, "…日本語"},
		{"a\nb\tc", 10, "a↵b→c"},
		{"esc\x1b[2J", 20, "esc�[2J"},
		{"ab\xe6\x97", 10, "ab"},
	}
	for _, c := range cases {
		if got := tail(c.text, c.cols); got != c.want {
			t.Errorf("tail(%q, %d) = %q, want %q", c.text, c.cols, got, c.want)
		}
	}
}
