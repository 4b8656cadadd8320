package remote

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":      "plain",
		"/a/b.c":     "/a/b.c",
		"":           "''",
		"two words":  "'two words'",
		"it's":       `'it'\''s'`,
		"$HOME":      "'$HOME'",
		"a;rm -rf /": "'a;rm -rf /'",
		"`x`":        "'`x`'",
		"new\nline":  "'new\nline'",
		"~/x":        "'~/x'",
		"*":          "'*'",
		"--flag=a b": "'--flag=a b'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// Every shell a host may log in with runs the wired script unchanged:
// the words arrive as given, nothing expanded.
func TestWireSurvivesLoginShells(t *testing.T) {
	args := []string{"a b", "it's", "$HOME", "`id`", "$(id)", "a;b", "~", "*", "\\n", "é ✓", "{x,y}", "!x", "%s", "'\"'"}
	script := "printf '%s\\n' " + Line(args...)
	want := ""
	for _, a := range args {
		want += a + "\n"
	}
	ran := 0
	for _, sh := range []string{"sh", "bash", "dash", "zsh", "fish", "tcsh", "csh"} {
		p, err := exec.LookPath(sh)
		if err != nil {
			continue
		}
		ran++
		out, err := exec.Command(p, "-c", Wire(script)).CombinedOutput()
		if err != nil || string(out) != want {
			t.Errorf("%s -c reinterpreted the command: %v\n%q\nwant\n%q", sh, err, out, want)
		}
	}
	if ran < 2 {
		t.Fatalf("only %d shells to try", ran)
	}
}
