package osc

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

// TestNotificationBytes pins each terminal's documented sequence.
func TestNotificationBytes(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, c := range []struct {
		term Terminal
		want string
	}{
		{OSC9, "\x1b]9;paneteam review: alice needs you\a"},
		{OSC777, "\x1b]777;notify;paneteam review;alice needs you\a"},
		{OSC99, "\x1b]99;i=paneteam:d=0:e=1:p=title;" + b64("paneteam review") + "\x1b\\" +
			"\x1b]99;i=paneteam:d=1:e=1:p=body;" + b64("alice needs you") + "\x1b\\"},
		{None, ""},
	} {
		if got := string(Notification(c.term, "paneteam review", "alice needs you")); got != c.want {
			t.Errorf("%s: got %q, want %q", c.term, got, c.want)
		}
	}
}

// TestTeammateTextCannotEscape: a name or subject holding BEL, ESC, ST or
// ';' neither ends the sequence nor adds a field.
func TestTeammateTextCannotEscape(t *testing.T) {
	evil := "x\a\x1b]0;owned\x1b\\;y\x9c"
	for _, term := range []Terminal{OSC9, OSC777} {
		seq := Notification(term, "t", evil)
		inner := seq[len("\x1b]") : len(seq)-1] // between the opening ESC ] and the closing BEL
		if bytes.ContainsAny(inner, "\a\x1b") || !bytes.HasSuffix(seq, []byte("\a")) {
			t.Errorf("%s: %q holds a control of the teammate's", term, seq)
		}
		if n := bytes.Count(seq, []byte(";")); (term == OSC9 && n != 1) || (term == OSC777 && n != 3) {
			t.Errorf("%s: %q has %d ';', a field was added", term, seq, n)
		}
	}
	if strings.ContainsAny(Clean(evil), "\a\x1b;") {
		t.Errorf("Clean(%q) = %q", evil, Clean(evil))
	}
	if long := Clean(strings.Repeat("é", 300)); len(long) > maxText+len("…") {
		t.Errorf("not cut: %d bytes", len(long))
	}
}

func TestPassthroughDoublesEscape(t *testing.T) {
	got := string(Passthrough([]byte("\x1b]99;;hi\x1b\\")))
	want := "\x1bPtmux;\x1b\x1b]99;;hi\x1b\x1b\\\x1b\\"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if Passthrough(nil) != nil {
		t.Error("an empty sequence is wrapped")
	}
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		prog, term, typ string
		want            Terminal
	}{
		{"", "xterm-kitty", "", OSC99},
		{"iTerm.app", "xterm-256color", "", OSC9},
		{"WezTerm", "xterm-256color", "", OSC777},
		{"", "tmux-256color", "kitty(0.32.2)", OSC99},
		{"", "xterm-256color", "", None},
	} {
		if got := Detect(c.prog, c.term, c.typ); got != c.want {
			t.Errorf("Detect(%q,%q,%q) = %q, want %q", c.prog, c.term, c.typ, got, c.want)
		}
	}
}
