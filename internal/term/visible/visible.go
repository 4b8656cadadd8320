// Package visible is paneteam's one rule for showing text that someone
// else wrote (a teammate's message, command, plan, name or summary) on a
// person's terminal: shown, never interpreted, and never mistaken for
// another text.
//
// The rule, for one line (Line):
//
//   - Text with nothing a terminal would act on is printed as it is:
//     ordinary names, messages and commands stay readable, backslashes
//     and quotes included (a typed `echo a\nb` prints as `echo a\nb`).
//   - Text holding any character a terminal would act on or not draw is
//     printed in the shell's ANSI-C quoted form, $'…', with those
//     characters as escapes: a line break as \n, a tab as \t, a carriage
//     return as \r, other C0 controls and DEL as \xNN (ESC is \x1b),
//     bytes that are not UTF-8 as \xNN, and C1 controls, Unicode format
//     characters (bidirectional overrides, zero-width characters) and
//     line or paragraph separators as \uXXXX. Inside that form a
//     backslash is \\ and a single quote \'. So a command holding a real
//     newline prints as $'echo a\nb', which bash itself reads back as
//     the same text.
//   - Text that merely starts with $' is quoted too, so that it cannot
//     pass for the quoted form of another text.
//
// Hence the marker: $'…' around a text means escapes inside it; no marker
// means the text is exactly what is printed. Two different texts never
// print alike, and the output holds no control character.
//
// Block applies the rule to each line of a text shown on several lines (a
// plan, a message body): line breaks stay line breaks. JSON makes encoded
// JSON safe to print without changing what it decodes to.
package visible

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Marker opens the quoted form of a text that holds escapes; a closing
// single quote ends it.
const Marker = "$'"

// Line returns s as it may be written to a terminal on one line (see the
// package documentation for the rule).
func Line(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(Marker)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\'':
			b.WriteString(`\'`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// Block returns s for a terminal on several lines: each line as Line
// shows it, line breaks kept. A carriage return is escaped, never kept.
func Block(s string) string {
	if !strings.Contains(s, "\n") {
		return Line(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Line(l)
	}
	return strings.Join(lines, "\n")
}

// plain reports text printed as it is: nothing to escape, and not
// starting with the marker.
func plain(s string) bool {
	if strings.HasPrefix(s, Marker) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return plainRunes(s[i:])
		}
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

func plainRunes(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n <= 1) || r < 0x20 || r == 0x7f || hidden(r) {
			return false
		}
		i += n
	}
	return true
}

// hidden reports a character a terminal may act on or not draw: C1
// controls (U+009B is CSI for some terminals), format characters
// (bidirectional overrides, zero-width joiners) and line separators.
func hidden(r rune) bool {
	return (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp)
}

// JSON makes encoded JSON safe to print on a terminal without changing
// what it decodes to: characters that Line escapes and a JSON encoder
// leaves raw (DEL, C1 controls, format characters) become \uXXXX escapes.
// They can only occur inside strings, where such an escape means the same.
func JSON(b []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r != utf8.RuneError && hidden(r)) {
			if r > 0xffff {
				a, z := utf16.EncodeRune(r)
				fmt.Fprintf(&out, `\u%04x\u%04x`, a, z)
			} else {
				fmt.Fprintf(&out, `\u%04x`, r)
			}
		} else {
			out.Write(b[i : i+n])
		}
		i += n
	}
	return out.Bytes()
}
