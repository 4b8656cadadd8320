package jsonx

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Elements splits a JSON array into its elements, as json.Unmarshal into
// []json.RawMessage does, with one difference: an element nested deeper
// than encoding/json goes (10,000 levels) does not make the whole array
// unreadable. JavaScript's JSON.parse, which Claude Code reads these files
// with, takes any depth, so such an array is valid to every other reader
// and one deep element must cost that element only: it is returned as
// written, and fails on its own when the caller decodes it. An array that
// is not valid JSON at any depth is still an error, encoding/json's.
func Elements(data []byte) ([]json.RawMessage, error) {
	var raws []json.RawMessage
	err := json.Unmarshal(data, &raws)
	if err == nil {
		return raws, nil
	}
	if validDeep(data) != nil {
		return nil, err
	}
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, err
	}
	raws = []json.RawMessage{}
	i = skipSpace(data, i+1)
	if data[i] == ']' {
		return raws, nil
	}
	for {
		end, serr := skipValue(data, i)
		if serr != nil {
			return nil, serr
		}
		raws = append(raws, json.RawMessage(data[i:end]))
		i = skipSpace(data, end)
		if data[i] == ']' {
			return raws, nil
		}
		i = skipSpace(data, i+1) // past the ',' validDeep saw
	}
}

// validDeep reports whether data is one valid JSON value, at any depth:
// the nesting is followed with a stack on the heap, never by recursion,
// and every string, number and literal is checked by encoding/json itself.
func validDeep(data []byte) error {
	var stack []byte // '[' or '{' of each open container
	i := skipSpace(data, 0)
	for {
		// A value starts at i.
		if i >= len(data) {
			return errors.New("unexpected end of JSON input")
		}
		switch data[i] {
		case '[', '{':
			open := data[i]
			stack = append(stack, open)
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == closer(open) {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if open == '{' {
				var err error
				if i, err = objectKey(data, i); err != nil {
					return err
				}
			}
			continue
		default:
			end, err := skipValue(data, i)
			if err != nil {
				return err
			}
			if end == i || !json.Valid(data[i:end]) {
				return fmt.Errorf("invalid JSON value at offset %d", i)
			}
			i = end
		}
		// A value ended just before i: what may follow it?
		for {
			i = skipSpace(data, i)
			if len(stack) == 0 {
				if i != len(data) {
					return fmt.Errorf("invalid character after top-level value at offset %d", i)
				}
				return nil
			}
			top := stack[len(stack)-1]
			if i < len(data) && data[i] == closer(top) {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if i >= len(data) || data[i] != ',' {
				return fmt.Errorf("want ',' or %q at offset %d", closer(top), i)
			}
			i = skipSpace(data, i+1)
			if top == '{' {
				var err error
				if i, err = objectKey(data, i); err != nil {
					return err
				}
			}
			break
		}
	}
}

func closer(open byte) byte {
	if open == '[' {
		return ']'
	}
	return '}'
}

// objectKey checks a key and its ':' at i and returns where its value
// starts.
func objectKey(data []byte, i int) (int, error) {
	if i >= len(data) || data[i] != '"' {
		return 0, fmt.Errorf("want an object key at offset %d", i)
	}
	end, err := skipValue(data, i)
	if err != nil {
		return 0, err
	}
	if !json.Valid(data[i:end]) {
		return 0, fmt.Errorf("invalid object key at offset %d", i)
	}
	i = skipSpace(data, end)
	if i >= len(data) || data[i] != ':' {
		return 0, fmt.Errorf("want ':' at offset %d", i)
	}
	return skipSpace(data, i+1), nil
}

// CutMember returns the JSON object data with the value of its member key
// replaced by an empty array, and that value as written: so a reader can
// decode the rest of a file whose one list holds an element nested deeper
// than encoding/json goes, and that list with Elements. data must be valid
// JSON at any depth; a key given twice is cut where encoding/json would
// read it, its last time.
func CutMember(data []byte, key string) (rest []byte, val json.RawMessage, err error) {
	if err := validDeep(data); err != nil {
		return nil, nil, err
	}
	pairs, err := objectPairs(data)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range pairs {
		if p.key == key {
			val = p.val
		}
	}
	if val == nil {
		return nil, nil, fmt.Errorf("no %q in the object", key)
	}
	// val is a slice of data: its capacity says where it starts.
	at := cap(data) - cap(val)
	rest = append(append(append([]byte{}, data[:at]...), "[]"...), data[at+len(val):]...)
	return rest, val, nil
}
