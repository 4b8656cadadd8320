package termtext

import "testing"

func TestVisible(t *testing.T) {
	cases := map[string]string{
		"alice":                 "alice",
		"日本 ü":                  "日本 ü",
		"a\x1b]52;c;ZXZpbA==\a": `a\x1b]52;c;ZXZpbA==\x07`,
		"two\nlines\r":          `two\nlines\r`,
		"bad\xffbyte":           `bad\xffbyte`,
		"c1\u009b2J":            `c1\x9b2J`,
		"rtl\u202eevil":         `rtl\u202eevil`,
	}
	for in, want := range cases {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}
