// Package jsonx reads and writes the records of Claude Code's files (team
// config, tasks, inbox entries) with encoding/json, laid out as Claude
// Code's JSON.stringify(v, null, 2) lays them out, and lets record types
// keep fields they do not know, in the order they were read, across a
// read-modify-write.
//
// The layout matches: 2-space indent, HTML characters (<, >, &) not
// escaped, no trailing newline. The strings match too, except for the
// escapes encoding/json always writes and JavaScript never does: U+2028
// and U+2029 come out as \u2028 and \u2029, and a byte that is not UTF-8
// as \ufffd where JSON.stringify writes the character itself. A reader
// (JSON.parse, Claude Code) sees the same value either way; paneteam keeps
// encoding/json's form because its --json output and the files it has
// written are stable in it. Where the bytes themselves are compared (what
// a lead signs, the digest a permission answer is bound to) paneteam uses
// package jsjson, which writes strings exactly as JavaScript does.
package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// Marshal encodes v compactly without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// MarshalIndent encodes v with a 2-space indent and no trailing newline,
// as JSON.stringify(v, null, 2) lays the same value out (its strings
// escaped as the package comment says).
func MarshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Fields remembers the key order of an object as it was read and the values
// of keys the Go type does not know, so that writing it back keeps both.
// The zero value is an object read from nothing: known keys come out in the
// type's canonical order.
//
// Most reads never write back (a status line, a send reading its team), so
// Unmarshal only keeps the object's bytes; they are split into keys the
// first time they are needed.
type Fields struct {
	raw     []byte       // the object as read, not split yet
	known   reflect.Type // the type that claimed keys of raw
	order   []string
	unknown map[string]json.RawMessage
}

// split returns f with raw split into order and unknown.
func (f Fields) split() Fields {
	if f.raw == nil {
		return f
	}
	// Unmarshal checked both: raw is a valid object, known a struct.
	pairs, _ := objectPairs(f.raw)
	claimed, _ := keysOf(f.known)
	out := Fields{}
	for _, p := range pairs {
		out.order = append(out.order, p.key)
		if !claimed[p.key] {
			if out.unknown == nil {
				out.unknown = map[string]json.RawMessage{}
			}
			out.unknown[p.key] = p.val
		}
	}
	return out
}

// Empty reports whether f holds nothing: a record made in Go, not read.
func (f *Fields) Empty() bool { return f.raw == nil && len(f.order) == 0 && len(f.unknown) == 0 }

// Get returns the raw value of a field the type does not know.
func (f *Fields) Get(key string) (json.RawMessage, bool) {
	v, ok := f.split().unknown[key]
	return v, ok
}

// Set stores a raw value under a key the type does not know; a new key goes
// after the keys that were read.
func (f *Fields) Set(key string, v json.RawMessage) {
	*f = f.split()
	if f.unknown == nil {
		f.unknown = map[string]json.RawMessage{}
	}
	if _, ok := f.unknown[key]; !ok {
		f.order = append(f.order, key)
	}
	f.unknown[key] = v
}

// Delete removes a field the type does not know.
func (f *Fields) Delete(key string) {
	*f = f.split()
	delete(f.unknown, key)
}

// Unmarshal decodes data into known (a pointer to a struct type with no
// custom UnmarshalJSON, usually an alias of the record type) and records in
// f the key order and every key that known's fields do not claim. f keeps
// data, as the unknown values always did: callers pass bytes they do not
// reuse (json.Unmarshal's input, one json.Decoder value).
func Unmarshal(data []byte, known any, f *Fields) error {
	if err := json.Unmarshal(data, known); err != nil {
		return err
	}
	if i := skipSpace(data, 0); i >= len(data) || data[i] != '{' {
		_, err := objectPairs(data) // not an object: its error
		if err == nil {
			err = fmt.Errorf("jsonx: not a JSON object")
		}
		return err
	}
	t := reflect.TypeOf(known)
	if _, err := keysOf(t); err != nil {
		return err
	}
	*f = Fields{raw: data, known: t}
	return nil
}

// MarshalWith encodes known (a struct without custom MarshalJSON) merged
// with f: keys that were read keep their place, known keys that are new
// follow in the struct's order, and keys the type no longer sets are gone.
func MarshalWith(known any, f Fields) ([]byte, error) {
	f = f.split()
	kb, err := Marshal(known)
	if err != nil {
		return nil, err
	}
	kpairs, err := objectPairs(kb)
	if err != nil {
		return nil, err
	}
	kval := make(map[string]json.RawMessage, len(kpairs))
	for _, p := range kpairs {
		kval[p.key] = p.val
	}
	var out bytes.Buffer
	out.WriteByte('{')
	written := map[string]bool{}
	emit := func(k string, v json.RawMessage) {
		if written[k] {
			return
		}
		if len(written) > 0 {
			out.WriteByte(',')
		}
		out.Write(AppendString(out.AvailableBuffer(), k))
		out.WriteByte(':')
		out.Write(v)
		written[k] = true
	}
	for _, k := range f.order {
		if v, ok := kval[k]; ok {
			emit(k, v)
		} else if v, ok := f.unknown[k]; ok {
			emit(k, v)
		}
	}
	for _, p := range kpairs {
		emit(p.key, p.val)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// AppendString appends s as a JSON string, as Marshal writes it. Every key
// of every message on every inbox write passes here, and every string of a
// message a send writes; they are nearly always plain ASCII, which needs
// only quotes: an encoder per key cost three allocations each, 40% of
// those of encoding an inbox.
//
// It is not jsjson.AppendString: a file paneteam writes keeps the layout
// encoding/json gives the rest of it (U+2028 and U+2029 escaped, invalid
// UTF-8 as U+FFFD), while jsjson must give JSON.stringify's bytes, which a
// signature covers; the same string may come out differently from each.
func AppendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			enc, _ := Marshal(s) // a string always encodes
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

type pair struct {
	key string
	val json.RawMessage
}

// objectPairs splits a JSON object into its members, in order. It is a
// hot path (an inbox of 20,000 messages calls it 20,000 times), so it scans
// the bytes itself instead of using json.Decoder's tokens; data must be
// valid JSON (callers have decoded it already), else an error is returned.
func objectPairs(data []byte) ([]pair, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, fmt.Errorf("want a JSON object")
	}
	i = skipSpace(data, i+1)
	var pairs []pair
	if i < len(data) && data[i] == '}' {
		return pairs, nil
	}
	for i < len(data) {
		if data[i] != '"' {
			return nil, fmt.Errorf("want an object key at offset %d", i)
		}
		end, err := skipValue(data, i)
		if err != nil {
			return nil, err
		}
		rawKey := data[i:end]
		key := string(rawKey[1 : len(rawKey)-1])
		// Escapes and invalid UTF-8 (which encoding/json turns into
		// U+FFFD) take the slow, exact path.
		if bytes.IndexByte(rawKey, '\\') >= 0 || !utf8.Valid(rawKey) {
			if err := json.Unmarshal(rawKey, &key); err != nil {
				return nil, err
			}
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil, fmt.Errorf("want ':' at offset %d", i)
		}
		i = skipSpace(data, i+1)
		end, err = skipValue(data, i)
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, pair{key, json.RawMessage(data[i:end])})
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		if i < len(data) && data[i] == '}' {
			return pairs, nil
		}
		return nil, fmt.Errorf("want ',' or '}' at offset %d", i)
	}
	return nil, fmt.Errorf("unexpected end of JSON object")
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the offset just past the JSON value starting at i.
func skipValue(b []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch c := b[j]; c {
		case '"':
			for j++; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
			if j >= len(b) {
				return 0, fmt.Errorf("unterminated string at offset %d", i)
			}
			if depth == 0 {
				return j + 1, nil
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j, nil // end of a literal just before the close
			}
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return j, nil
			}
		}
	}
	if depth == 0 && len(b) > i {
		return len(b), nil
	}
	return 0, fmt.Errorf("unexpected end of JSON value at offset %d", i)
}

// keysOf lists the JSON keys a struct (or pointer to one) claims: every
// exported field's json name, omitempty or not.
func keysOf(t reflect.Type) (map[string]bool, error) {
	if k, ok := keyCache.Load(t); ok {
		return k.(map[string]bool), nil
	}
	keys, err := structKeys(t)
	if err == nil {
		keyCache.Store(t, keys)
	}
	return keys, err
}

// keyCache holds keysOf's answer per type: it never changes, and
// reflection per decoded object would dominate large inboxes.
var keyCache sync.Map

func structKeys(t reflect.Type) (map[string]bool, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("jsonx: %s is not a struct", t)
	}
	keys := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = sf.Name
		}
		keys[name] = true
	}
	return keys, nil
}
