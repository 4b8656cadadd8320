// Package termtext makes text that someone else wrote safe to print on a
// terminal: what a teammate controls (messages, names, summaries) is shown,
// never interpreted as escape sequences.
package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible returns s as it may be written to a terminal: control
// characters and escape sequences are shown as \x1b, \n and so on instead
// of being sent, so text someone else wrote (a member name in config.json,
// a teammate's message) cannot move the cursor, clear the screen, retitle
// the pane, set the clipboard (OSC 52) or reorder text (bidi controls).
// Printable text, any UTF-8, and tabs are unchanged; a line break is shown
// as \n, so split text into lines first to keep them.
func Visible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteByte('\t')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}
