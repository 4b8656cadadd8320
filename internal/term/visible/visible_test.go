package visible

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"alice":                 "alice",
		"日本 ü, it's":            "日本 ü, it's",
		`echo a\nb`:             `echo a\nb`,    // typed: as it is
		"echo a\nb":             `$'echo a\nb'`, // real newline: marked
		`a\tb`:                  `a\tb`,         // typed
		"a\tb":                  `$'a\tb'`,      // real tab
		"a\x1b]52;c;ZXZpbA==\a": `$'a\x1b]52;c;ZXZpbA==\x07'`,
		"two\nlines\r":          `$'two\nlines\r'`,
		"bad\xffbyte":           `$'bad\xffbyte'`,
		"c1\u009b2J":            `$'c1\u009b2J'`,
		"rtl\u202eevil":         `$'rtl\u202eevil'`,
		"del\x7f":               `$'del\x7f'`,
		"zero\u200bwidth":       `$'zero\u200bwidth'`,
		"it's\n\\n":             `$'it\'s\n\\n'`,
		`$'x'`:                  `$'$\'x\''`, // looks like the marker: quoted
		"$ echo":                "$ echo",
		"":                      "",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBlockKeepsLineBreaksAndMarksEachLine(t *testing.T) {
	got := Block("# Plan\n\x1b[8mhidden\x1b[0m\r\n" + `typed \n` + "\n")
	want := "# Plan\n" + `$'\x1b[8mhidden\x1b[0m\r'` + "\n" + `typed \n` + "\n"
	if got != want {
		t.Errorf("Block = %q, want %q", got, want)
	}
}

func TestJSONEscapesWithoutChangingTheValue(t *testing.T) {
	in := map[string]string{"cmd": "a\u009b31m\u202eb\x7fc"}
	b, _ := json.Marshal(in)
	out := JSON(b)
	if strings.ContainsAny(string(out), "\u009b\u202e\x7f") {
		t.Fatalf("raw characters left: %q", out)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["cmd"] != in["cmd"] {
		t.Fatalf("value changed: %q %v", back["cmd"], err)
	}
}

// unquote reads Line's output back: the proof that no two texts print
// alike.
func unquote(t *testing.T, v string) string {
	t.Helper()
	if !strings.HasPrefix(v, Marker) {
		return v
	}
	if len(v) < 3 || !strings.HasSuffix(v, "'") {
		t.Fatalf("unterminated quoted form %q", v)
	}
	body := v[2 : len(v)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '\'' {
			t.Fatalf("unescaped quote inside %q", v)
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			t.Fatalf("trailing backslash in %q", v)
		}
		switch body[i] {
		case '\\', '\'':
			b.WriteByte(body[i])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			b.WriteByte(byte(hexAt(t, body, i+1, 2)))
			i += 2
		case 'u':
			b.WriteRune(rune(hexAt(t, body, i+1, 4)))
			i += 4
		default:
			t.Fatalf("unknown escape \\%c in %q", body[i], v)
		}
	}
	return b.String()
}

// hexAt reads the digits hexadecimal digits at s[i:].
func hexAt(t *testing.T, s string, i, digits int) uint64 {
	t.Helper()
	if i+digits > len(s) {
		t.Fatalf("short escape at %d in %q", i, s)
	}
	n, err := strconv.ParseUint(s[i:i+digits], 16, 32)
	if err != nil {
		t.Fatalf("bad escape at %d in %q: %v", i, s, err)
	}
	return n
}

func checkPrintable(t *testing.T, v string, allowNewline bool) {
	t.Helper()
	if !utf8.ValidString(v) {
		t.Fatalf("output is not UTF-8: %q", v)
	}
	for _, r := range v {
		if r == '\n' && allowNewline {
			continue
		}
		if r < 0x20 || r == 0x7f || hidden(r) {
			t.Fatalf("output holds %U: %q", r, v)
		}
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"echo a\nb", `echo a\nb`, "a\tb", `a\tb`, `$'x'`, "$'", "it's", "\x1b[2J", "\u202e", "\xff", ""} {
		f.Add(s, `$'`+s+`'`)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		va, vb := Line(a), Line(b)
		if a != b && va == vb {
			t.Fatalf("%q and %q both print as %q", a, b, va)
		}
		if back := unquote(t, va); back != a {
			t.Fatalf("Line(%q) = %q reads back as %q", a, va, back)
		}
		checkPrintable(t, va, false)
		vb2 := Block(b)
		checkPrintable(t, vb2, true)
		lines := strings.Split(vb2, "\n")
		for i := range lines {
			lines[i] = unquote(t, lines[i])
		}
		if back := strings.Join(lines, "\n"); back != b {
			t.Fatalf("Block(%q) = %q reads back as %q", b, vb2, back)
		}
	})
}
