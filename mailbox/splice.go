package mailbox

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// spliceAppend adds queued messages to an inbox without decoding it: the
// new elements are written after the last one, in the layout Encode uses.
// Senders write far more often than anyone reads, and a lead with a
// thousand unread messages should not pay for decoding and re-encoding all
// of them on every send.
//
// It applies when old is valid JSON, laid out the way Encode and Claude
// Code's JSON.stringify(v, null, 2) lay an inbox out, holding only
// objects, none of them read (those must go to the archive, which needs
// the decoding path). Then the existing elements are kept byte for byte,
// which for any inbox Encode or Claude Code wrote is exactly what decoding
// and re-encoding would give. Otherwise (an empty file, another layout, a
// read message) it returns ok false and the caller decodes; what decoding
// judges beyond that, such as a field of the wrong type, is judged on the
// next write that decodes.
//
// A queued message that old already holds (its holder died before retiring
// the queue) is not added again, as in appendMissing: its encoding, which
// every writer of this layout produces identically, is looked up in old.
func spliceAppend(old []byte, queued []Message) (out []byte, ok bool, err error) {
	empty := string(old) == "[]"
	if !empty && !(bytes.HasPrefix(old, []byte("[\n  {\n")) && bytes.HasSuffix(old, []byte("\n  }\n]"))) {
		return nil, false, nil
	}
	if !empty && !(json.Valid(old) && unreadObjects(old)) {
		return nil, false, nil
	}
	var elems [][]byte
	seen := map[string]int{}
	for _, m := range queued {
		e, err := element(m)
		if err != nil {
			return nil, false, err
		}
		// "\n" + the element matches only a whole element at depth 1: a
		// string cannot hold a raw newline, and deeper objects are
		// indented further.
		key := string(e)
		if _, counted := seen[key]; !counted && !empty {
			seen[key] = bytes.Count(old, append([]byte{'\n'}, e...))
		}
		if seen[key] > 0 {
			seen[key]--
			continue
		}
		elems = append(elems, e)
	}
	if len(elems) == 0 {
		return old, true, nil
	}
	var buf bytes.Buffer
	if empty {
		buf.WriteString("[\n")
	} else {
		buf.Write(old[:len(old)-2]) // without "\n]"
		buf.WriteString(",\n")
	}
	buf.Write(bytes.Join(elems, []byte(",\n")))
	buf.WriteString("\n]")
	return buf.Bytes(), true, nil
}

// element is m as one element of an encoded inbox: "  {\n    ...\n  }".
func element(m Message) ([]byte, error) {
	b, err := Encode([]Message{m})
	if err != nil {
		return nil, fmt.Errorf("encode message: %w", err)
	}
	return b[len("[\n") : len(b)-len("\n]")], nil
}

// unreadObjects reports whether valid JSON b is an array of objects none
// of which is read: every member key that decodes as "read" (encoding/json
// matches keys without regard to case) is written plainly as "read" and
// holds false.
func unreadObjects(b []byte) bool {
	depth := 0
	i := 0
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			end, escaped := stringEnd(b, i)
			if depth == 2 {
				j := skipBlank(b, end)
				if j < len(b) && b[j] == ':' {
					key := b[i+1 : end-1]
					if escaped {
						var k string
						if json.Unmarshal(b[i:end], &k) != nil {
							return false
						}
						key = []byte(k)
					}
					if bytes.EqualFold(key, []byte("read")) {
						v := skipBlank(b, j+1)
						if escaped || string(key) != "read" || !bytes.HasPrefix(b[v:], []byte("false")) {
							return false
						}
					}
				}
			}
			i = end
			continue
		case c == '[' || c == '{':
			if depth == 1 && c != '{' {
				return false
			}
			depth++
		case c == ']' || c == '}':
			depth--
		case depth == 1 && c != ',' && c != ' ' && c != '\n' && c != '\t' && c != '\r':
			return false // a scalar in the top-level array
		}
		i++
	}
	return true
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
