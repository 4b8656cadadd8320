package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// A reader that only counts an inbox (the status line) needs of each
// entry its sender, time, read flag, and the text only when it can be a
// request or an idle notice. Decoding every entry with encoding/json is
// most of what a 40 MB inbox costs: it goes over each byte several times,
// one state change at a time. A brief read (Inbox.Brief) scans the file
// itself (scan.go), takes the fields it needs from an entry's bytes, and
// decodes a text only when its bytes name a request or an idle notice or
// hold a \u escape (which could spell one). An entry of any other shape
// (a key in another case, a field of another type, an escaped key, null)
// is decoded by encoding/json as always, and a file the scanner does not
// accept is read as Each reads it: the same entries are read and skipped,
// with the same errors.

// briefChunk is the read size; an entry larger than it grows the buffer
// to the entry's size.
const briefChunk = 256 << 10

// errNotBrief: the file is not an inbox array the scanner accepts; the
// encoding/json stream decides what it is.
var errNotBrief = errors.New("not a plain inbox array")

// markers are what a text's bytes hold when it can be a request or an
// idle notice (or escape one).
var markers = [][]byte{[]byte("_request"), []byte(TypeIdle), []byte(`\u`)}

// knownKeys are the entry keys Message decodes; jsonx keeps the others.
var knownKeys = [...]string{"from", "text", "summary", "timestamp", "color", "msgV", "msg_id", "type", "read", "lead_sig", "from_plugin"}

// streamBrief is stream for a Brief inbox.
func (in *Inbox) streamBrief(fn func(Message)) ([]*SkippedEntry, error) {
	if err := in.checkFolder(); err != nil {
		return nil, err
	}
	f, err := safefs.OpenFile(in.Path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errNotBrief // stream says it, word for word
	}
	defer f.Close()
	r := &briefReader{r: f, buf: make([]byte, 0, briefChunk)}
	c, err := r.next()
	if errors.Is(err, io.EOF) {
		return nil, nil // empty
	}
	if err != nil || c != '[' {
		return nil, errNotBrief
	}
	r.pos++
	var skipped []*SkippedEntry
	for i := 0; ; i++ {
		c, err := r.next()
		if err != nil {
			return nil, errNotBrief
		}
		if c == ']' && i == 0 {
			r.pos++
			break
		}
		raw, err := r.value()
		if err != nil {
			return nil, errNotBrief
		}
		m, ok := briefMessage(raw)
		if !ok {
			m, raw = Message{}, bytes.Clone(raw)
			if err := json.Unmarshal(raw, &m); err != nil {
				skipped = append(skipped, &SkippedEntry{Path: in.Path, Index: i + 1, Raw: raw, Err: err})
				continue
			}
		}
		m.at = i + 1
		fn(m)
		if c, err = r.next(); err != nil {
			return nil, errNotBrief
		}
		r.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			return nil, errNotBrief
		}
	}
	if _, err := r.next(); !errors.Is(err, io.EOF) {
		return nil, errNotBrief // something after the array
	}
	return skipped, nil
}

// briefReader holds the part of the file being scanned: one chunk, or
// one entry when an entry is larger.
type briefReader struct {
	r      io.Reader
	buf    []byte
	pos    int
	eof    bool
	failed error
}

// fill reads more, keeping buf[pos:]; false when nothing more comes.
func (b *briefReader) fill() bool {
	if b.eof || b.failed != nil {
		return false
	}
	n := copy(b.buf, b.buf[b.pos:])
	b.buf, b.pos = b.buf[:n], 0
	if cap(b.buf)-n < briefChunk/2 {
		b.buf = append(make([]byte, 0, 2*cap(b.buf)+briefChunk), b.buf...)
	}
	for {
		m, err := b.r.Read(b.buf[n:cap(b.buf)])
		b.buf = b.buf[:n+m]
		if errors.Is(err, io.EOF) {
			b.eof = true
		} else if err != nil {
			b.failed = err
		}
		if m > 0 || err != nil {
			return m > 0
		}
	}
}

// next skips white space and returns the next byte, without taking it.
func (b *briefReader) next() (byte, error) {
	for {
		b.pos = skipWS(b.buf, b.pos)
		if b.pos < len(b.buf) {
			return b.buf[b.pos], nil
		}
		if !b.fill() {
			if b.failed != nil {
				return 0, b.failed
			}
			return 0, io.EOF
		}
	}
}

// value takes the value at pos; the bytes are valid until the next call.
func (b *briefReader) value() ([]byte, error) {
	for {
		end, err := scanValue(b.buf, b.pos, 0)
		if err == nil {
			v := b.buf[b.pos:end]
			b.pos = end
			return v, nil
		}
		if !errors.Is(err, errShort) || !b.fill() {
			return nil, errJSON
		}
	}
}

// briefMessage takes from, text, timestamp and read from an entry that
// encoding/json would decode into Message without error and without
// looking twice: an object whose keys are spelled as Message spells them,
// each once, of the types it declares. The text is decoded only when it
// holds a marker. ok is false for any other entry.
func briefMessage(raw []byte) (m Message, ok bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return m, false
	}
	var seen [len(knownKeys)]bool
	i := skipWS(raw, 1)
	if raw[i] == '}' {
		return m, true
	}
	for {
		ke, _ := scanString(raw, i) // raw was scanned whole: no error
		key := raw[i+1 : ke-1]
		i = skipWS(raw, ke)
		i = skipWS(raw, i+1) // ':'
		ve, _ := scanValue(raw, i, 0)
		val := raw[i:ve]
		if !briefField(&m, key, val, &seen) {
			return m, false
		}
		i = skipWS(raw, ve)
		if raw[i] == '}' {
			return m, true
		}
		i = skipWS(raw, i+1) // ','
	}
}

func briefField(m *Message, key, val []byte, seen *[len(knownKeys)]bool) bool {
	k := -1
	for j, name := range knownKeys {
		if string(key) == name {
			k = j
			break
		}
	}
	if k < 0 {
		// Kept by jsonx, unless encoding/json would match it to a known
		// key without case (or an escape spells one).
		if bytes.IndexByte(key, '\\') >= 0 || !isASCII(key) {
			return false
		}
		for _, name := range knownKeys {
			if strings.EqualFold(string(key), name) {
				return false
			}
		}
		return true
	}
	if seen[k] {
		return false
	}
	seen[k] = true
	switch knownKeys[k] {
	case "read":
		switch string(val) {
		case "true":
			m.Read = true
		case "false":
		default:
			return false
		}
	case "msgV":
		return isSmallInt(val)
	default:
		if val[0] != '"' {
			return false
		}
		switch knownKeys[k] {
		case "from":
			m.From = briefString(val)
		case "timestamp":
			m.Timestamp = briefString(val)
		case "text":
			for _, mk := range markers {
				if bytes.Contains(val, mk) {
					m.Text = briefString(val)
					break
				}
			}
		}
	}
	return true
}

// briefString decodes a JSON string token as encoding/json does.
func briefString(tok []byte) string {
	in := tok[1 : len(tok)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in)
	}
	var s string
	json.Unmarshal(tok, &s) // a scanned string token always decodes
	return s
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isSmallInt: an integer encoding/json puts in an int without error.
func isSmallInt(v []byte) bool {
	d := v
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 15 || (d[0] == '0' && len(d) > 1) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
