package jsonx

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Claude Code's files hold lists other programs write too (inbox entries,
// config members): one entry of the wrong shape must cost that entry, not
// the file. The readers decode such a list element by element, keep the
// bytes of an element that does not fit, and write them back in their
// place; these are the pieces they share.

// Keep records data (a JSON object) in f as Unmarshal would for a value of
// known's type, without decoding it: for a record whose decoding failed in
// one member the caller decoded on its own.
func Keep(data []byte, known any, f *Fields) error {
	if _, err := objectPairs(data); err != nil {
		return err
	}
	t := reflect.TypeOf(known)
	if _, err := keysOf(t); err != nil {
		return err
	}
	*f = Fields{raw: data, known: t}
	return nil
}

// KeepDecoded is Keep for data that was just decoded into a value of
// known's type without error, so it is valid JSON and, unless it is null,
// an object: that is checked by its first byte, where Keep scans it whole.
func KeepDecoded(data []byte, known any, f *Fields) error {
	if i := skipSpace(data, 0); i >= len(data) || data[i] != '{' {
		return fmt.Errorf("jsonx: not a JSON object")
	}
	t := reflect.TypeOf(known)
	if _, err := keysOf(t); err != nil {
		return err
	}
	*f = Fields{raw: data, known: t}
	return nil
}

// Kept is an element of a JSON array that did not decode, kept as it was
// written.
type Kept struct {
	Index int             // its place in the array as read, from 0
	Raw   json.RawMessage // its bytes, exactly as read
}

// Slot is one element of an array about to be written: the I-th decoded
// element, or (Kept) the I-th kept one.
type Slot struct {
	Kept bool
	I    int
}

// Interleave places kept elements among the decoded ones about to be
// written. at[i] is the place (from 1) in the array as read of the i-th
// element to write, or 0 for one added since; kept is in array order. A
// kept element goes before the first element that followed it when read,
// or that is new; what is left goes at the end. Each kept element stays
// between the neighbours it had, however many of them were removed.
func Interleave(at []int, kept []Kept) []Slot {
	out := make([]Slot, 0, len(at)+len(kept))
	k := 0
	for i, a := range at {
		for k < len(kept) && (a == 0 || kept[k].Index < a-1) {
			out = append(out, Slot{Kept: true, I: k})
			k++
		}
		out = append(out, Slot{I: i})
	}
	for ; k < len(kept); k++ {
		out = append(out, Slot{Kept: true, I: k})
	}
	return out
}

// Why says in a person's words why a record did not decode: which field
// holds what kind of value where another goes, or the decoder's own error.
func Why(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type != nil {
		field := te.Field
		if field == "" {
			return fmt.Sprintf("it is a JSON %s, not an object", te.Value)
		}
		return fmt.Sprintf("%q holds a %s where a %s goes", field, te.Value, kind(te.Type))
	}
	return err.Error()
}

func kind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Pointer:
		return kind(t.Elem())
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.String()
}

// MemberElements returns the elements of the array under key in the JSON
// object data, each as a slice of data, by scanning, not decoding: for a
// caller that has just decoded data (so it is valid JSON) and wants each
// element's own bytes too, to Keep their unknown keys. ok is false when
// key is absent, given more than once, or not an array.
func MemberElements(data []byte, key string) (elems []json.RawMessage, ok bool) {
	pairs, err := objectPairs(data)
	if err != nil {
		return nil, false
	}
	var val []byte
	for _, p := range pairs {
		if p.key == key {
			if val != nil {
				return nil, false
			}
			val = p.val
		}
	}
	i := skipSpace(val, 0)
	if i >= len(val) || val[i] != '[' {
		return nil, false
	}
	elems = []json.RawMessage{}
	for i = skipSpace(val, i+1); i < len(val) && val[i] != ']'; {
		end, err := skipValue(val, i)
		if err != nil {
			return nil, false
		}
		elems = append(elems, val[i:end:end])
		if i = skipSpace(val, end); i < len(val) && val[i] == ',' {
			i = skipSpace(val, i+1)
		}
	}
	return elems, i < len(val)
}
