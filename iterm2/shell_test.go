package iterm2_test

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/iterm2"
)

// shells that run the typed line here; sh is always present. The line
// must mean the same in each.
func shells(t *testing.T) []string {
	var out []string
	for _, sh := range []string{"sh", "bash", "zsh", "dash", "fish"} {
		p, err := exec.LookPath(sh)
		switch {
		case err == nil:
			out = append(out, p)
		case testutil.RequireAll() && (sh == "zsh" || sh == "fish"):
			t.Fatalf("%s is required (PANETEAM_REQUIRE_ALL=1): install it", sh)
		default:
			t.Logf("SKIPPED for %s: not on PATH", sh)
		}
	}
	if len(out) == 0 {
		t.Fatal("no sh on PATH")
	}
	return out
}

var nasty = []string{
	"it's", `"double"`, "$HOME", "a b", "*", ";echo pwned", `\back\slash`,
	"`id`", "$(id)", "", "é ü 日本", "-n", "~", "!!", "#hash", "'", "''",
	// fish reads \\ and \' inside single quotes: a lone backslash before
	// the closing quote would run the next argument's text.
	`\`, " ; touch pwned ; ", `\`, `a\\b`, `end\`, `\'`,
}

// The line CommandLine builds, run by real shells, must cd to the folder,
// set the variables and exec the argv exactly, whatever they contain.
func TestCommandLineRunsExactly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dir with 'quote' and $x")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// printf prints the cwd, the variable and each argument on its own line.
	argv := append([]string{"sh", "-c", `printf '%s\n' "$PWD" "$PT_VAR" "$@"`, "argv0"}, nasty...)
	env := []string{"PT_VAR=v a'l\"u$e"}
	line, err := iterm2.CommandLine(dir, env, argv, map[string]string{iterm2.AgentVar: "researcher"})
	if err != nil {
		t.Fatal(err)
	}
	wantVar := "\x1b]1337;SetUserVar=paneteam_agent=" + base64.StdEncoding.EncodeToString([]byte("researcher")) + "\a"
	want := wantVar + strings.Join(append([]string{dir, env[0][len("PT_VAR="):]}, nasty...), "\n") + "\n"
	for _, sh := range shells(t) {
		cmd := exec.Command(sh, "-c", line)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "HOME=/nonexistent", "x=EXPANDED")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s -c %q: %v\n%s", sh, line, err, out)
		}
		if string(out) != want {
			t.Errorf("%s ran the line differently:\ngot  %q\nwant %q\nline %s", sh, out, want, line)
		}
	}
}

func TestCommandLineRefusesWhatCannotBeTyped(t *testing.T) {
	cases := []struct {
		name string
		dir  string
		env  []string
		argv []string
	}{
		{"newline in an argument", "/tmp", nil, []string{"echo", "a\nrm -rf ~"}},
		{"carriage return", "/tmp", nil, []string{"echo", "a\r"}},
		{"escape in the folder", "/tmp/\x1b[2J", nil, []string{"true"}},
		{"newline in a variable", "/tmp", []string{"A=1\n2"}, []string{"true"}},
		{"variable without =", "/tmp", []string{"JUSTNAME"}, []string{"true"}},
		{"program that env reads as a variable", "/tmp", nil, []string{"A=B"}},
		{"no command", "/tmp", nil, nil},
	}
	for _, c := range cases {
		if line, err := iterm2.CommandLine(c.dir, c.env, c.argv, nil); err == nil {
			t.Errorf("%s: accepted, typed line %q", c.name, line)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":         "plain",
		"/usr/bin/env":  "/usr/bin/env",
		"a b":           "'a b'",
		"it's":          `'it'\''s'`,
		"":              "''",
		"$HOME":         "'$HOME'",
		"~":             "'~'",
		"--flag=value,": "'--flag=value,'",
		`a\b`:           `'a'\\'b'`,
		`end\`:          `'end'\\''`,
	} {
		if got := iterm2.Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
