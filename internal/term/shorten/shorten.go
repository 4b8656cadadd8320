// Package shorten cuts text someone wrote down to what a line of a
// display or of an error message has room for, by runes, never inside
// one.
package shorten

import (
	"strings"
	"unicode/utf8"
)

// Mark ends a line FirstLine cut.
const Mark = "…"

// FirstLine is s's first line with the spaces around it trimmed, at most
// max runes long: a longer line is cut and ends in Mark (max <= 0 keeps
// it whole). Blank lines before the first words do not count.
func FirstLine(s string, max int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	line = strings.TrimSpace(line)
	if max <= 0 {
		return line
	}
	return Runes(line, max, Mark)
}

// Runes is s cut to n runes with mark after the cut, or s itself when it
// has n runes or fewer.
func Runes(s string, n int, mark string) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + mark
}
