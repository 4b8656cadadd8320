package mcpserver

import (
	"bytes"
	"encoding/json"
)

// maxIDBytes bounds the id idScan keeps: a JSON-RPC id is a number or a
// short string, and anything longer is not answered by id.
const maxIDBytes = 256

// idScan finds the value of a JSON object's top-level "id" member as the
// bytes stream by, holding nothing but that value: a request too long to
// keep must still be answered by its id. Clients write the id before the
// params (the Go SDK) or after them (the TypeScript SDK, which Claude
// Code uses), so the whole line is scanned. Inside a string a quote is
// always escaped, so an "id" key is told from text that merely says
// "id". On text that is not JSON it finds what it can, or nothing.
type idScan struct {
	depth     int
	topObject bool // the line is an object, not an array
	inString  bool
	escaped   bool
	atKey     bool // the next string at depth 1 is a key
	inKey     bool // reading a key at depth 1
	key       []byte
	inValue   bool // reading the value of a top-level "id"
	value     []byte
	long      bool // value grew past maxIDBytes
	found     json.RawMessage
}

func (s *idScan) feed(b []byte) {
	for _, c := range b {
		if s.inString {
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			}
			if s.inKey {
				if s.inString {
					s.key = appendShort(s.key, c, nil)
				} else {
					s.inKey = false
				}
			}
			if s.inValue {
				s.value = appendShort(s.value, c, &s.long)
			}
			continue
		}
		switch c {
		case '"':
			s.inString = true
			if s.depth == 1 && s.atKey {
				s.inKey, s.atKey, s.key = true, false, s.key[:0]
			}
		case '{', '[':
			s.depth++
			if s.depth == 1 {
				s.topObject, s.atKey = c == '{', c == '{'
			}
		case '}', ']':
			if s.depth == 1 {
				s.endValue()
			}
			s.depth--
		case ',':
			if s.depth == 1 {
				s.endValue()
				s.atKey = s.topObject
			}
		case ':':
			if s.depth == 1 && string(s.key) == "id" {
				s.inValue, s.value, s.long = true, s.value[:0], false
				continue
			}
		}
		if s.inValue {
			s.value = appendShort(s.value, c, &s.long)
		}
	}
}

// appendShort appends c to b while b is short; past that it sets *long.
func appendShort(b []byte, c byte, long *bool) []byte {
	if len(b) < maxIDBytes {
		return append(b, c)
	}
	if long != nil {
		*long = true
	}
	return b
}

func (s *idScan) endValue() {
	if !s.inValue {
		return
	}
	s.inValue = false
	s.found = nil
	if !s.long {
		s.found = bytes.Clone(bytes.TrimSpace(s.value))
	}
}

// id is the top-level id found, nil if none.
func (s *idScan) id() json.RawMessage { return s.found }
