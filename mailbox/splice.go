package mailbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
)

// spliceDrain is the write a send makes (freshly queued messages in, read
// messages out to the archive) done on the inbox's bytes instead of its
// decoded messages. Senders write far more often than anyone reads: a
// lead with a thousand unread messages should not pay for decoding and
// re-encoding all of them on every send, nor should the first send into
// an inbox holding 20,000 read ones.
//
// It applies when old is valid JSON laid out the way Encode and Claude
// Code's JSON.stringify(v, null, 2) lay an inbox out, holding only objects
// that decode as messages (each known field a string or null, "read"
// plainly true or false). Then unread elements are kept byte for byte,
// read ones become archive lines (compacted, one per line), and fresh is
// added in Encode's layout: for any inbox Encode or Claude Code wrote,
// exactly what the decoding path (decode, append, prune, Encode) writes.
// Otherwise (an empty file, another layout, anything decoding would
// refuse) it returns ok false and the caller decodes.
func spliceDrain(old []byte, fresh []Message) (inbox, archive []byte, ok bool, err error) {
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
	for _, m := range fresh {
		e, err := element(m)
		if err != nil {
			return nil, nil, false, err
		}
		keep = append(keep, e)
	}
	if len(keep) == 0 {
		return []byte("[]"), arch.Bytes(), true, nil
	}
	var buf bytes.Buffer
	buf.Grow(len(old) + 256*len(fresh))
	buf.WriteString("[\n")
	buf.Write(bytes.Join(keep, []byte(",\n")))
	buf.WriteString("\n]")
	return buf.Bytes(), arch.Bytes(), true, nil
}

// element is m as one element of an encoded inbox: "  {\n    ...\n  }".
// A message made here (not read from a file, so with no fields of its own
// to keep) is written directly: it is every send's one encoding, and the
// reflective encoder's first use in a process cost about 0.2 ms.
// FuzzElement holds the two ways to the same bytes.
func element(m Message) ([]byte, error) {
	if m.extra.Empty() {
		return appendElement(make([]byte, 0, 256+len(m.Text)), m), nil
	}
	return encodedElement(m)
}

func encodedElement(m Message) ([]byte, error) {
	b, err := Encode([]Message{m})
	if err != nil {
		return nil, fmt.Errorf("encode message: %w", err)
	}
	return b[len("[\n") : len(b)-len("\n]")], nil
}

// appendElement writes m as Encode lays out an element: Message's fields
// in their order, omitempty ones left out when empty.
func appendElement(b []byte, m Message) []byte {
	b = append(b, "  {\n"...)
	first := true
	key := func(k string) {
		if !first {
			b = append(b, ",\n"...)
		}
		first = false
		b = append(b, `    "`...)
		b = append(b, k...)
		b = append(b, `": `...)
	}
	str := func(k, v string) {
		key(k)
		b = jsonx.AppendString(b, v)
	}
	str("from", m.From)
	str("text", m.Text)
	if m.Summary != "" {
		str("summary", m.Summary)
	}
	str("timestamp", m.Timestamp)
	if m.Color != "" {
		str("color", m.Color)
	}
	if m.MsgV != 0 {
		key("msgV")
		b = strconv.AppendInt(b, int64(m.MsgV), 10)
	}
	if m.MsgID != "" {
		str("msg_id", m.MsgID)
	}
	if m.Type != "" {
		str("type", m.Type)
	}
	key("read")
	b = strconv.AppendBool(b, m.Read)
	if m.LeadSig != "" {
		str("lead_sig", m.LeadSig)
	}
	if m.FromPlugin != "" {
		str("from_plugin", m.FromPlugin)
	}
	return append(b, "\n  }"...)
}

// rawElement is one message of an inbox as written, with its indent.
type rawElement struct {
	raw  []byte
	read bool
}

// splitElements splits valid JSON b, an array, into its elements. It
// fails unless every element is an object that opens and closes on its own
// line after a two-space indent and whose members checkMember accepts.
func splitElements(b []byte) ([]rawElement, bool) {
	var out []rawElement
	depth, start := 0, 0
	var cur rawElement
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			if depth == 1 {
				return nil, false // a string in the top-level array
			}
			end, escaped := stringEnd(b, i)
			if depth == 2 {
				if j := skipBlank(b, end); j < len(b) && b[j] == ':' {
					read, isRead, ok := checkMember(b[i:end], escaped, b[skipBlank(b, j+1):])
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

// stringFields are the message keys decoding requires to hold a string
// (or null).
var stringFields = [][]byte{[]byte("from"), []byte("text"), []byte("summary"), []byte("timestamp"), []byte("color")}

// checkMember looks at one member of a message: its key (quoted, as
// written) and what follows the colon. encoding/json matches keys without
// regard to case, so every key that decodes as a known field counts. ok
// false means decoding would refuse the member (a known field of the wrong
// type) or it is "read" in a form this path does not take (another case,
// escapes, a value other than true or false); isRead says the key is
// "read", and read its value.
func checkMember(quoted []byte, escaped bool, value []byte) (read, isRead, ok bool) {
	key := quoted[1 : len(quoted)-1]
	if escaped {
		var k string
		if json.Unmarshal(quoted, &k) != nil {
			return false, false, false
		}
		key = []byte(k)
	}
	for _, f := range stringFields {
		if bytes.EqualFold(key, f) {
			return false, false, len(value) > 0 && value[0] == '"' || bytes.HasPrefix(value, []byte("null"))
		}
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
