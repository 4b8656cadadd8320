package tmux

import (
	"os/exec"
	"strings"
	"testing"
)

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "''"},
		{"plain", "plain"},
		{"a/b-c_d.e:f=g@h%i+j,k", "a/b-c_d.e:f=g@h%i+j,k"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"`id`", "'`id`'"},
		{"a;b", "'a;b'"},
		{"new\nline", "'new\nline'"},
		{`back\slash`, `'back\slash'`},
		{"*", "'*'"},
		{"~", "'~'"},
		{"'", `''\'''`},
	}
	for _, tc := range tests {
		if got := ShellQuote(tc.in); got != tc.want {
			t.Errorf("ShellQuote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestShellJoinRoundTrip hands the quoted line to a real sh and checks
// that the program sees exactly the original words.
func TestShellJoinRoundTrip(t *testing.T) {
	argv := []string{"printf", `%s\0`, "", "two words", "it's", "$HOME", "`id`", "a;b", "new\nline", `back\slash`, "*", "~", "é ü", "-n"}
	out, err := exec.Command("/bin/sh", "-c", ExecLine(argv)).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	want := argv[2:]
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sh saw %q, want %q", got, want)
	}
}

func TestFormatEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"alice", "alice"},
		{"#{pane_id}", "##{pane_id}"},
		{"/tmp/a#b", "/tmp/a##b"},
		{"##", "####"},
	}
	for _, tc := range tests {
		if got := FormatEscape(tc.in); got != tc.want {
			t.Errorf("FormatEscape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscapeArg(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{";", `\;`},
		{"dir;", `dir\;`},
		{`a\;`, `a\\;`},
		{"a;b", "a;b"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := escapeArg(tc.in); got != tc.want {
			t.Errorf("escapeArg(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscapeCommas(t *testing.T) {
	tests := []struct{ in, want string }{
		{"default", "default"},
		{"fg=red,bg=blue", "fg=red#,bg=blue"},
		{"#{?pane_in_mode,fg=yellow,fg=green}", "#{?pane_in_mode,fg=yellow,fg=green}"},
		{"bg=black,#{?a,x,y}", "bg=black#,#{?a,x,y}"},
		{"#{?a,#{?b,c,d},e},f", "#{?a,#{?b,c,d},e}#,f"},
		{"already#,escaped", "already#,escaped"},
	}
	for _, tc := range tests {
		if got := escapeCommas(tc.in); got != tc.want {
			t.Errorf("escapeCommas(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
