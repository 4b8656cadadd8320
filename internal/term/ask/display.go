package ask

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// shown is how the editor draws the text being typed: the characters it
// keeps that a terminal would act on are drawn as symbols.
func shown(r rune) string {
	switch {
	case r == '\n':
		return "↵"
	case r == '\t':
		return "→"
	case r == utf8.RuneError, r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, unicode.Is(unicode.Cf, r):
		return "�"
	}
	return string(r)
}

// width is the number of terminal columns r takes: 0 for combining marks,
// 2 for East Asian wide and fullwidth characters and most emoji, else 1.
// (An approximation of wcwidth; it decides only what part of a long line
// is drawn, never what is kept.)
func width(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf && r != 0x303f,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

// tail is the end of text that fits in cols columns, drawn with shown,
// preceded by "…" when the start had to be left out: a long line scrolls
// sideways in one row rather than wrapping, so redrawing it never depends
// on where the terminal wrapped or scrolled.
func tail(text string, cols int) string {
	text = complete(text)
	cols = max(cols, 2)
	total := 0
	for _, r := range text {
		total += cellWidth(r)
	}
	if total <= cols {
		var b strings.Builder
		for _, r := range text {
			b.WriteString(shown(r))
		}
		return b.String()
	}
	var parts []string
	used := 0
	for i := len(text); i > 0; {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		w := cellWidth(r)
		if used+w > cols-1 {
			break
		}
		parts = append(parts, shown(r))
		used += w
		i -= n
	}
	var b strings.Builder
	b.WriteString("…")
	for j := len(parts) - 1; j >= 0; j-- {
		b.WriteString(parts[j])
	}
	return b.String()
}

func cellWidth(r rune) int {
	if shown(r) != string(r) {
		return 1
	}
	return width(r)
}

// complete drops an unfinished UTF-8 character at the end of text (its
// other bytes are still on the way from the terminal).
func complete(text string) string {
	for back := 1; back <= utf8.UTFMax && back <= len(text); back++ {
		i := len(text) - back
		if utf8.RuneStart(text[i]) {
			if !utf8.FullRuneInString(text[i:]) {
				return text[:i]
			}
			return text
		}
	}
	return text
}
