// Package jsjson writes JSON exactly as JavaScript's JSON.stringify does,
// and reads it as JSON.parse does, for the places where bytes must match
// Claude Code's (docs/PROTOCOL.md §11 and §9): the
// bytes a lead signs and the canonical tool input a permission answer is
// bound to. Go's encoding/json differs from JavaScript in escaping (it
// escapes <, >, &, U+2028 and U+2029, and turns lone surrogates into
// U+FFFD), in number formatting (1e21, 1e-7, -0) and in key order.
//
// Strings. A JavaScript string is UTF-16 and may hold a lone surrogate; a
// Go string is bytes. Here a Go string is read as WTF-8: well-formed UTF-8,
// plus a surrogate code point U+D800..U+DFFF written in the 3-byte UTF-8
// form (ED A0..BF 80..BF), which stands for that lone surrogate. Parse
// produces exactly that for an escaped lone surrogate ("\ud800"), so a value
// read from JSON and written again keeps it, as JSON.parse and
// JSON.stringify do. A high and a low surrogate next to each other are one
// character, as in JavaScript. Any other byte that is not UTF-8 becomes
// U+FFFD, one per byte, which is what Node does when it reads such bytes
// as UTF-8 text (it differs from Node only for truncated multi-byte
// sequences, which Node replaces with one U+FFFD for the whole sequence).
package jsjson

import (
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as JSON.stringify writes a string: only '"' and
// '\' escaped, \b \f \n \r \t, other characters below U+0020 as \u00xx,
// lone surrogates as \udxxx (lower-case hex), everything else as is.
//
// It is not jsonx.AppendString, which writes a string as encoding/json
// does for the files paneteam keeps in that layout: a signature or digest
// covers the bytes JavaScript makes, and encoding/json's differ from them
// (U+2028, U+2029 and invalid UTF-8).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				if c < 0x20 {
					dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
				} else {
					dst = append(dst, c)
				}
			}
			i++
			continue
		}
		r, n := decodeRune(s[i:])
		switch {
		case isSurrogate(r):
			// A high surrogate followed by a low one is one character.
			if r < 0xDC00 {
				if r2, n2 := decodeRune(s[i+n:]); r2 >= 0xDC00 && r2 <= 0xDFFF {
					dst = utf8.AppendRune(dst, 0x10000+(r-0xD800)<<10+(r2-0xDC00))
					i += n + n2
					continue
				}
			}
			dst = append(dst, '\\', 'u', 'd', hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		case r == utf8.RuneError && n == 1:
			dst = append(dst, "\uFFFD"...)
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

// Quote is AppendString as a string.
func Quote(s string) string { return string(AppendString(nil, s)) }

func isSurrogate(r rune) bool { return r >= 0xD800 && r <= 0xDFFF }

// decodeRune is utf8.DecodeRuneInString that also reads a surrogate code
// point in its 3-byte (WTF-8) form; it returns (RuneError, 1) for a byte
// that starts nothing valid, and (-1, 0) at the end of s.
func decodeRune(s string) (rune, int) {
	if len(s) == 0 {
		return -1, 0
	}
	if len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && s[2] >= 0x80 && s[2] <= 0xBF {
		return rune(0xD000) | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
	}
	return utf8.DecodeRuneInString(s)
}

// appendWTF8 appends code point r, a surrogate included, in its UTF-8 form.
func appendWTF8(dst []byte, r rune) []byte {
	if isSurrogate(r) {
		return append(dst, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(dst, r)
}

// utf16Units returns s as JavaScript sees it: UTF-16 code units.
func utf16Units(s string, buf []uint16) []uint16 {
	buf = buf[:0]
	for i := 0; i < len(s); {
		r, n := decodeRune(s[i:])
		if r == utf8.RuneError && n == 1 {
			r = 0xFFFD
		}
		if r >= 0x10000 {
			r -= 0x10000
			buf = append(buf, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
		} else {
			buf = append(buf, uint16(r))
		}
		i += n
	}
	return buf
}

// Less orders strings as JavaScript's < does: by UTF-16 code units. It
// differs from Go's byte order for characters above U+FFFF, which sort
// before U+E000..U+FFFF in JavaScript.
func Less(a, b string) bool {
	var ab, bb [64]uint16
	ua, ub := utf16Units(a, ab[:0]), utf16Units(b, bb[:0])
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}
