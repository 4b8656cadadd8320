package mailbox

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// spliceDrain is the write a send makes (queued messages in, read messages
// out to the archive) done on the inbox's bytes instead of its decoded
// messages. Senders write far more often than anyone reads: a lead with a
// thousand unread messages should not pay for decoding and re-encoding all
// of them on every send, nor should the first send into an inbox holding
// 20,000 read ones.
//
// It applies when old is valid JSON laid out the way Encode and Claude
// Code's JSON.stringify(v, null, 2) lay an inbox out, holding only objects
// whose "read" is plainly true, false or absent. Then unread elements are
// kept byte for byte, read ones become archive lines (compacted, one per
// line), and the queued messages are added in Encode's layout: for any
// inbox Encode or Claude Code wrote, exactly what the decoding path
// (decode, appendMissing, prune, Encode) writes. Otherwise (an empty file,
// another layout, an odd "read") it returns ok false and the caller
// decodes; what decoding judges beyond that, such as a field of the wrong
// type, is judged by the next write that decodes.
//
// A queued message that old already holds, read or not (its holder died
// before retiring the queue), is not added again, as in appendMissing: its
// encoding, which every writer of this layout produces identically, is
// compared with old's elements.
func spliceDrain(old []byte, queued []Message) (inbox, archive []byte, ok bool, err error) {
	var elems []rawElement
	if string(old) != "[]" {
		if !bytes.HasPrefix(old, []byte("[\n  {\n")) || !bytes.HasSuffix(old, []byte("\n  }\n]")) || !json.Valid(old) {
			return nil, nil, false, nil
		}
		if elems, ok = splitElements(old); !ok {
			return nil, nil, false, nil
		}
	}
	var keep [][]byte
	var arch bytes.Buffer
	for _, e := range elems {
		if !e.read {
			keep = append(keep, e.raw)
			continue
		}
		if err := json.Compact(&arch, bytes.TrimSpace(e.raw)); err != nil {
			return nil, nil, false, fmt.Errorf("archive message: %w", err)
		}
		arch.WriteByte('\n')
	}
	// Each queued message as it would be written, unread, and as a reader
	// would have left it, read; then how often old holds either, one pass
	// over its elements (most lengths differ, so few are compared).
	encs := make([][2][]byte, len(queued))
	held := map[string]int{}
	lengths := map[int]bool{}
	for i, m := range queued {
		for j, read := range []bool{false, true} {
			m.Read = read
			e, err := element(m)
			if err != nil {
				return nil, nil, false, err
			}
			encs[i][j] = e
			held[string(e)] = 0
			lengths[len(e)] = true
		}
	}
	for _, e := range elems {
		if lengths[len(e.raw)] {
			if _, ok := held[string(e.raw)]; ok {
				held[string(e.raw)]++
			}
		}
	}
	for _, enc := range encs {
		if unread, read := string(enc[0]), string(enc[1]); held[unread] > 0 {
			held[unread]--
		} else if held[read] > 0 {
			held[read]--
		} else {
			keep = append(keep, enc[0])
		}
	}
	if len(keep) == 0 {
		return []byte("[]"), arch.Bytes(), true, nil
	}
	var buf bytes.Buffer
	buf.Grow(len(old) + 256*len(queued))
	buf.WriteString("[\n")
	buf.Write(bytes.Join(keep, []byte(",\n")))
	buf.WriteString("\n]")
	return buf.Bytes(), arch.Bytes(), true, nil
}

// element is m as one element of an encoded inbox: "  {\n    ...\n  }".
func element(m Message) ([]byte, error) {
	b, err := Encode([]Message{m})
	if err != nil {
		return nil, fmt.Errorf("encode message: %w", err)
	}
	return b[len("[\n") : len(b)-len("\n]")], nil
}

// rawElement is one message of an inbox as written, with its indent.
type rawElement struct {
	raw  []byte
	read bool
}

// splitElements splits valid JSON b, an array, into its elements. It
// fails unless every element is an object that opens and closes on its own
// line after a two-space indent, and whose member keys that decode as
// "read" (encoding/json matches keys without regard to case) are written
// plainly as "read" and hold true or false.
func splitElements(b []byte) ([]rawElement, bool) {
	var out []rawElement
	depth, start := 0, 0
	var cur rawElement
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			end, escaped := stringEnd(b, i)
			if depth == 2 {
				if j := skipBlank(b, end); j < len(b) && b[j] == ':' {
					read, isRead, ok := readMember(b[i:end], escaped, b[skipBlank(b, j+1):])
					if !ok {
						return nil, false
					}
					if isRead {
						cur.read = read
					}
				}
			}
			i = end
			continue
		case c == '{' || c == '[':
			if depth == 1 {
				if c != '{' {
					return nil, false
				}
				if !indented(b, i) {
					return nil, false
				}
				start, cur = i-2, rawElement{}
			}
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 1 {
				if !indented(b, i) {
					return nil, false
				}
				cur.raw = b[start : i+1]
				out = append(out, cur)
			}
		case depth == 1 && c != ',' && c != ' ' && c != '\n' && c != '\t' && c != '\r':
			return nil, false // a scalar in the top-level array
		}
		i++
	}
	return out, true
}

// readMember looks at one member key (quoted, as written) and what follows
// its colon. isRead says the key decodes as "read"; ok false means it does
// in a form this path does not take (another case, escapes, a value other
// than true or false).
func readMember(quoted []byte, escaped bool, value []byte) (read, isRead, ok bool) {
	key := quoted[1 : len(quoted)-1]
	if escaped {
		var k string
		if json.Unmarshal(quoted, &k) != nil {
			return false, false, false
		}
		key = []byte(k)
	}
	if !bytes.EqualFold(key, []byte("read")) {
		return false, false, true
	}
	if escaped || string(key) != "read" {
		return false, true, false
	}
	switch {
	case bytes.HasPrefix(value, []byte("true")):
		return true, true, true
	case bytes.HasPrefix(value, []byte("false")):
		return false, true, true
	}
	return false, true, false
}

// indented reports whether b[i] begins its line after exactly the
// two-space indent of an inbox element.
func indented(b []byte, i int) bool {
	return i >= 3 && string(b[i-3:i]) == "\n  "
}

// stringEnd returns the index just past the string starting at b[i] (a
// quote) and whether it held an escape. b is valid JSON.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(b), escaped
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}
