package mailbox

import (
	"bytes"
	"errors"
)

// A JSON scanner for the brief read of an inbox (brief.go): it finds
// where a value ends and checks it is valid JSON, skipping the inside of
// a string with memchr rather than a state machine per byte, which is
// most of an inbox. It accepts no more than encoding/json does; whatever
// it does not accept sends the reader back to encoding/json, which
// decides.

var (
	// errShort: the data ends inside the value; more may follow.
	errShort = errors.New("json value runs past the data")
	errJSON  = errors.New("not valid json")
)

// maxScanDepth is encoding/json's own nesting limit.
const maxScanDepth = 10000

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// scanValue returns the index just past the JSON value starting at d[i].
func scanValue(d []byte, i, depth int) (int, error) {
	if i >= len(d) {
		return i, errShort
	}
	switch c := d[i]; {
	case c == '"':
		return scanString(d, i)
	case c == '{' || c == '[':
		return scanComposite(d, i, depth+1)
	case c == 't':
		return scanLit(d, i, "true")
	case c == 'f':
		return scanLit(d, i, "false")
	case c == 'n':
		return scanLit(d, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(d, i)
	}
	return i, errJSON
}

func scanComposite(d []byte, i, depth int) (int, error) {
	if depth > maxScanDepth {
		return i, errJSON
	}
	end := byte(']')
	if d[i] == '{' {
		end = '}'
	}
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == end {
		return i + 1, nil
	}
	for {
		var err error
		if end == '}' {
			if i >= len(d) {
				return i, errShort
			}
			if d[i] != '"' {
				return i, errJSON
			}
			if i, err = scanString(d, i); err != nil {
				return i, err
			}
			if i = skipWS(d, i); i >= len(d) {
				return i, errShort
			}
			if d[i] != ':' {
				return i, errJSON
			}
			i = skipWS(d, i+1)
		}
		if i, err = scanValue(d, i, depth); err != nil {
			return i, err
		}
		if i = skipWS(d, i); i >= len(d) {
			return i, errShort
		}
		switch d[i] {
		case ',':
			i = skipWS(d, i+1)
		case end:
			return i + 1, nil
		default:
			return i, errJSON
		}
	}
}

// scanString returns the index just past the string whose quote is d[i].
func scanString(d []byte, i int) (int, error) {
	j := i + 1
	// The common case: no escape before the closing quote.
	if k := bytes.IndexByte(d[j:], '"'); k >= 0 {
		seg := d[j : j+k]
		if bytes.IndexByte(seg, '\\') < 0 {
			for _, c := range seg {
				if c < 0x20 {
					return i, errJSON
				}
			}
			return j + k + 1, nil
		}
	}
	for j < len(d) {
		switch c := d[j]; {
		case c == '"':
			return j + 1, nil
		case c == '\\':
			if j+1 >= len(d) {
				return i, errShort
			}
			switch d[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(d) {
					return i, errShort
				}
				for _, h := range d[j+2 : j+6] {
					if !isHex(h) {
						return i, errJSON
					}
				}
				j += 6
			default:
				return i, errJSON
			}
		case c < 0x20:
			return i, errJSON
		default:
			j++
		}
	}
	return i, errShort
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func scanLit(d []byte, i int, lit string) (int, error) {
	n := min(len(d)-i, len(lit))
	if string(d[i:i+n]) != lit[:n] {
		return i, errJSON
	}
	if n < len(lit) {
		return i, errShort
	}
	return i + len(lit), nil
}

// scanNumber: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. A number
// that reaches the end of the data may go on: errShort.
func scanNumber(d []byte, i int) (int, error) {
	j := i
	digits := func() int {
		s := j
		for j < len(d) && d[j] >= '0' && d[j] <= '9' {
			j++
		}
		return j - s
	}
	if d[j] == '-' {
		j++
	}
	if j < len(d) && d[j] == '0' {
		j++
	} else if digits() == 0 {
		if j >= len(d) {
			return i, errShort
		}
		return i, errJSON
	}
	if j < len(d) && d[j] == '.' {
		j++
		if digits() == 0 {
			if j >= len(d) {
				return i, errShort
			}
			return i, errJSON
		}
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		j++
		if j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		if digits() == 0 {
			if j >= len(d) {
				return i, errShort
			}
			return i, errJSON
		}
	}
	if j >= len(d) {
		return i, errShort
	}
	return j, nil
}
