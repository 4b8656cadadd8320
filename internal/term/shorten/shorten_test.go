package shorten

import "testing"

func TestFirstLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"done", 10, "done"},
		{"  done  \r\nmore lines\n", 10, "done"},
		{"\n\n  first words\nsecond", 0, "first words"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven runes", 10, "eleven run…"},
		{"ééééé ééééé\nx", 3, "ééé…"},
		{"", 5, ""},
		{"a very long first line that no limit cuts\nsecond", 0, "a very long first line that no limit cuts"},
	} {
		if got := FirstLine(c.in, c.max); got != c.want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestRunes(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		mark string
		want string
	}{
		{"short", 5, "...", "short"},
		{"longer", 5, "...", "longe..."},
		{"日本語のテキスト", 3, "\n[cut]", "日本語\n[cut]"},
	} {
		if got := Runes(c.in, c.n, c.mark); got != c.want {
			t.Errorf("Runes(%q, %d, %q) = %q, want %q", c.in, c.n, c.mark, got, c.want)
		}
	}
}
