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
	for _, want := range []string{`$'x\x1b[31m'`, `$'s\x1b[8m'`, "    line one\n", `    $'\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\x1b]2;pwned\x07 tab\tok'` + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("inbox output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\t") {
		t.Errorf("a raw tab reached the terminal: %q", out)
	}
	js, _, _ := ptRun(t, vars, "", "inbox", "--team", "t", "--name", "bob", "--json")
	if !strings.Contains(js, `\u001b]52;c;cm0gLXJmIH4=\u0007`) {
		t.Errorf("--json changed the text: %s", js)
	}
}

// A real tab or line break and a typed backslash-t or backslash-n are
// different texts: inbox and inbox-watch print them differently.
func TestInboxTellsRealEscapesFromTypedOnes(t *testing.T) {
	root, vars := ptRootVars(t)
	ptRun(t, vars, "", "team-create", "t")
	ptAddMember(t, root, "t", "bob")
	for _, m := range [][2]string{{"real\ttab", "s\n1"}, {`real\ttab`, `s\n1`}} {
		if _, stderr, code := ptRun(t, vars, "", "send", "--team", "t", "--to", "bob", "--from", "alice", "--summary", m[1], m[0]); code != 0 {
			t.Fatalf("send: %d %s", code, stderr)
		}
	}
	for _, args := range [][]string{{"inbox"}, {"inbox-watch", "--once"}} {
		out, errs, code := ptRun(t, vars, "", append(args, "--team", "t", "--name", "bob")...)
		if code != 0 {
			t.Fatalf("%s: exit %d %s", args[0], code, errs)
		}
		for _, want := range []string{`  $'s\n1'` + "\n", `  s\n1` + "\n", `    $'real\ttab'` + "\n", `    real\ttab` + "\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q:\n%s", args[0], want, out)
			}
		}
	}
}
