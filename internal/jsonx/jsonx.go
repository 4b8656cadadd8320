// Package jsonx encodes JSON the way Claude Code's JSON.stringify(v, null, 2)
// does, and lets record types keep fields they do not know, in the order they
// were read, across a read-modify-write.
//
// Two details make the bytes match: HTML characters (<, >, &) are not escaped,
// and there is no trailing newline.
package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
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
// byte for byte what JSON.stringify(v, null, 2) writes for the same value.
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
type Fields struct {
	order   []string
	unknown map[string]json.RawMessage
}

// Get returns the raw value of a field the type does not know.
func (f *Fields) Get(key string) (json.RawMessage, bool) {
	v, ok := f.unknown[key]
	return v, ok
}

// Set stores a raw value under a key the type does not know; a new key goes
// after the keys that were read.
func (f *Fields) Set(key string, v json.RawMessage) {
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
	delete(f.unknown, key)
}

// Unmarshal decodes data into known (a pointer to a struct type with no
// custom UnmarshalJSON, usually an alias of the record type) and records in
// f the key order and every key that known's fields do not claim.
func Unmarshal(data []byte, known any, f *Fields) error {
	if err := json.Unmarshal(data, known); err != nil {
		return err
	}
	pairs, err := objectPairs(data)
	if err != nil {
		return err
	}
	claimed, err := keysOf(known)
	if err != nil {
		return err
	}
	*f = Fields{}
	for _, p := range pairs {
		f.order = append(f.order, p.key)
		if !claimed[p.key] {
			if f.unknown == nil {
				f.unknown = map[string]json.RawMessage{}
			}
			f.unknown[p.key] = p.val
		}
	}
	return nil
}

// MarshalWith encodes known (a struct without custom MarshalJSON) merged
// with f: keys that were read keep their place, known keys that are new
// follow in the struct's order, and keys the type no longer sets are gone.
func MarshalWith(known any, f Fields) ([]byte, error) {
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
		kb, _ := Marshal(k)
		out.Write(kb)
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

type pair struct {
	key string
	val json.RawMessage
}

// objectPairs splits a JSON object into its members, in order.
func objectPairs(data []byte) ([]pair, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, got %v", tok)
	}
	var pairs []pair
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("want an object key, got %v", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		pairs = append(pairs, pair{key, raw})
	}
	return pairs, nil
}

// keysOf lists the JSON keys a struct (or pointer to one) claims: every
// exported field's json name, omitempty or not.
func keysOf(v any) (map[string]bool, error) {
	t := reflect.TypeOf(v)
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
