package teammate

import (
	"testing"

	"github.com/paneteam/paneteam/mailbox"
)

func TestOrderPutsShutdownFirstThenLeadThenPeers(t *testing.T) {
	shutdown := `{"type":"shutdown_request","requestId":"r1","from":"team-lead","timestamp":"x"}`
	in := []mailbox.Message{
		{From: "bob", Text: "peer 1"},
		{From: "team-lead", Text: "lead 1"},
		{From: "carol", Text: "peer 2"},
		{From: "team-lead", Text: shutdown},
		{From: "Team-Lead", Text: "lead 2"},
	}
	got := Order(in, "team-lead")
	want := []string{shutdown, "lead 1", "lead 2", "peer 1", "peer 2"}
	for i, w := range want {
		if got[i].Text != w {
			t.Fatalf("position %d: %q, want %q (whole: %+v)", i, got[i].Text, w, got)
		}
	}
	if in[0].Text != "peer 1" {
		t.Fatal("Order must not reorder its input slice")
	}
}

func TestKeystrokes(t *testing.T) {
	for _, c := range []struct {
		name, text string
		bracketed  bool
		want       string
	}{
		{"plain", "hello", false, "hello"},
		{"plain with paste mode", "hello", true, "hello"},
		{"multi-line typed", "a\nb", false, "a\rb"},
		{"multi-line pasted", "a\r\nb\n", true, "\x1b[200~a\rb\x1b[201~"},
		{"controls dropped", "x\x03y\x1b[201~z\x7f", true, "xy[201~z"},
		{"tab and unicode kept", "é\tü", false, "é\tü"},
		{"C1 controls dropped", "a\u009bb", false, "ab"},
		{"trailing newlines are not extra Enters", "done\n\n", false, "done"},
	} {
		if got := string(Keystrokes(c.text, c.bracketed)); got != c.want {
			t.Errorf("%s: Keystrokes(%q, %v) = %q, want %q", c.name, c.text, c.bracketed, got, c.want)
		}
	}
}
