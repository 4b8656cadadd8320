package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
)

// An inbox is written by Claude Code, by every teammate and by the tools
// they run. One entry another writer got wrong (a number where a name
// goes) must cost that entry, not the inbox: paneteam decodes an inbox
// entry by entry, leaves one that does not fit where it is, byte for byte,
// through every rewrite (a send, marking read, archiving), and reports it.
// Claude Code drops such an entry when it next writes the inbox
// (docs/PROTOCOL.md §6, §7); paneteam never does. A file that is not a
// JSON array at all is another matter: it is moved aside (CorruptError).

// SkippedEntry is an inbox entry paneteam could not read: it is left in
// place, and every other entry reads and changes as usual.
type SkippedEntry struct {
	Path  string          // the inbox
	Index int             // its place in the inbox, from 1
	Raw   json.RawMessage // the entry, as written
	Err   error           // why it did not decode
}

func (s *SkippedEntry) Error() string {
	return fmt.Sprintf("inbox %s: entry %d is not a message paneteam can read (%s); it is left as it is, "+
		"and the other messages are read and sent as usual (Claude Code drops such an entry when it next writes the inbox)",
		s.Path, s.Index, jsonx.Why(s.Err))
}

func (s *SkippedEntry) Unwrap() error { return s.Err }

// entries is an inbox as decoded: its messages, and the entries that did
// not decode, kept as written, with why.
type entries struct {
	msgs []Message
	kept []jsonx.Kept
	why  []error
}

func (e entries) skipped(path string) []*SkippedEntry {
	if len(e.kept) == 0 {
		return nil
	}
	out := make([]*SkippedEntry, len(e.kept))
	for i, k := range e.kept {
		out[i] = &SkippedEntry{Path: path, Index: k.Index + 1, Raw: k.Raw, Err: e.why[i]}
	}
	return out
}

// decodeEntries parses an inbox; an empty file (Claude Code creates it in
// two steps) is an empty inbox. Only a file that is not a JSON array is an
// error. Each message remembers its place (Message.at), so a rewrite puts
// the kept entries back between the same neighbours.
func decodeEntries(b []byte) (entries, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return entries{msgs: []Message{}}, nil
	}
	var msgs []Message
	err := json.Unmarshal(b, &msgs)
	if err == nil && msgs == nil {
		return entries{}, errors.New("inbox is null, not an array")
	}
	if err == nil {
		for i := range msgs {
			msgs[i].at = i + 1
		}
		return entries{msgs: msgs}, nil
	}
	// The common case costs one pass; an inbox holding an entry that does
	// not fit takes a second, element by element. An entry nested deeper
	// than encoding/json reads is one that does not fit: Claude Code's
	// JSON.parse reads the inbox, so it must not cost the others.
	raws, rerr := jsonx.Elements(b)
	if rerr != nil || raws == nil {
		return entries{}, err
	}
	e := entries{msgs: make([]Message, 0, len(raws))}
	for i, r := range raws {
		var m Message
		if err := json.Unmarshal(r, &m); err != nil {
			e.kept = append(e.kept, jsonx.Kept{Index: i, Raw: r})
			e.why = append(e.why, err)
			continue
		}
		m.at = i + 1
		e.msgs = append(e.msgs, m)
	}
	return e, nil
}

// decode parses an inbox into the messages paneteam can read.
func decode(b []byte) ([]Message, error) {
	e, err := decodeEntries(b)
	return e.msgs, err
}

// encodeEntries is Encode with the kept entries written back, byte for
// byte, between the neighbours they had.
func encodeEntries(msgs []Message, kept []jsonx.Kept) ([]byte, error) {
	if len(kept) == 0 {
		return Encode(msgs)
	}
	at := make([]int, len(msgs))
	for i := range msgs {
		at[i] = msgs[i].at
	}
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for n, s := range jsonx.Interleave(at, kept) {
		if n > 0 {
			buf.WriteString(",\n")
		}
		if s.Kept {
			buf.WriteString("  ")
			buf.Write(kept[s.I].Raw)
			continue
		}
		e, err := element(msgs[s.I])
		if err != nil {
			return nil, err
		}
		buf.Write(e)
	}
	buf.WriteString("\n]")
	return buf.Bytes(), nil
}
