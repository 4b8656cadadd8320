package cli

import (
	"strings"
	"testing"
)

// A teammate's message cannot drive the reader's terminal: escape
// sequences (clear screen, OSC 52 clipboard, retitle) in the sender,
// summary or text are printed visibly by inbox; --json keeps them exact.
func TestInboxShowsEscapeSequencesAsText(t *testing.T) {
	root, vars := ptRootVars(t)
	ptRun(t, vars, "", "team-create", "t")
	ptAddMember(t, root, "t", "bob")
	evil := "line one\n\x1b[2J\x1b]52;c;cm0gLXJmIH4=\a\x1b]2;pwned\x07 tab\tok"
	if _, stderr, code := ptRun(t, vars, "", "send", "--team", "t", "--to", "bob", "--from", "x\x1b[31m", "--summary", "s\x1b[8m", evil); code != 0 {
		t.Fatalf("send: %d %s", code, stderr)
	}
	out, _, code := ptRun(t, vars, "", "inbox", "--team", "t", "--name", "bob")
	if code != 0 || strings.ContainsAny(out, "\x1b\a") {
		t.Fatalf("inbox printed raw control characters (exit %d): %q", code, out)
	}
	for _, want := range []string{`x\x1b[31m`, `s\x1b[8m`, "    line one\n", `\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07`, "tab\tok"} {
		if !strings.Contains(out, want) {
			t.Errorf("inbox output lacks %q:\n%s", want, out)
		}
	}
	js, _, _ := ptRun(t, vars, "", "inbox", "--team", "t", "--name", "bob", "--json")
	if !strings.Contains(js, `\u001b]52;c;cm0gLXJmIH4=\u0007`) {
		t.Errorf("--json changed the text: %s", js)
	}
}
