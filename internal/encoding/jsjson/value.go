package jsjson

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"
)

// A decoded JSON value is nil, bool, float64, string (WTF-8, see the
// package comment), []any or *Object: what JSON.parse makes, with object
// members kept in order.

// Object is a JavaScript object read from JSON: its members in insertion
// order, a repeated key keeping its first place and its last value (as
// JSON.parse assigns).
type Object struct {
	Members []Member
}

// Member is one key and its value.
type Member struct {
	Key   string
	Value any
}

// set assigns key as JavaScript assignment does.
func (o *Object) set(key string, v any) {
	for i := range o.Members {
		if o.Members[i].Key == key {
			o.Members[i].Value = v
			return
		}
	}
	o.Members = append(o.Members, Member{key, v})
}

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	for _, m := range o.Members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// ordered returns the members in the order JavaScript enumerates them
// (Object.keys, JSON.stringify): array-index keys ("0", "7", "42": integers
// below 2^32-1 written canonically) first in ascending numeric order, then
// the others in insertion order.
func (o *Object) ordered() []Member {
	var idx, rest []Member
	for _, m := range o.Members {
		if _, ok := arrayIndex(m.Key); ok {
			idx = append(idx, m)
		} else {
			rest = append(rest, m)
		}
	}
	if len(idx) == 0 {
		return rest
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, _ := arrayIndex(idx[i].Key)
		b, _ := arrayIndex(idx[j].Key)
		return a < b
	})
	return append(idx, rest...)
}

// arrayIndex reports whether k is an array index as ECMAScript defines it.
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (k[0] == '0' && len(k) > 1) {
		return 0, false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return n, err == nil && n < 1<<32-1
}

// Marshal writes v compactly as JSON.stringify(v) does.
func Marshal(v any) ([]byte, error) { return appendValue(nil, v) }

func appendValue(dst []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case float64:
		return AppendNumber(dst, x), nil
	case string:
		return AppendString(dst, x), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendValue(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case *Object:
		dst = append(dst, '{')
		for i, m := range x.ordered() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, m.Key)
			dst = append(dst, ':')
			if dst, err = appendValue(dst, m.Value); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	return nil, fmt.Errorf("jsjson: cannot write a %T", v)
}

// MaxSortDepth is the deepest level whose object keys Claude Code sorts
// for a canonical value (docs/PROTOCOL.md §9: the
// top level is 0; from 33 on, keys stay in the order read).
const MaxSortDepth = 32

// Canonical returns v with object keys sorted by UTF-16 code units to
// MaxSortDepth, as Claude Code canonicalises a tool input before hashing
// it (Object.fromEntries(Object.entries(o).sort(...)), recursively). The
// result still enumerates array-index keys first, as any JavaScript object
// does.
func Canonical(v any) any { return canonical(v, 0) }

func canonical(v any, depth int) any {
	if depth > MaxSortDepth {
		return v
	}
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = canonical(e, depth+1)
		}
		return out
	case *Object:
		ms := make([]Member, len(x.Members))
		copy(ms, x.Members)
		sort.SliceStable(ms, func(i, j int) bool { return Less(ms[i].Key, ms[j].Key) })
		for i := range ms {
			ms[i].Value = canonical(ms[i].Value, depth+1)
		}
		return &Object{Members: ms}
	}
	return v
}

// ErrSyntax is wrapped by Parse's errors.
var ErrSyntax = errors.New("not JSON")

// ErrTooDeep is wrapped, beside ErrSyntax, by Parse's error for a value
// nested deeper than MaxNesting: JSON.parse (V8's parser does not recurse)
// reads such a value, so a caller judging text as JavaScript would must
// not take this error for "not JSON".
var ErrTooDeep = errors.New("nested too deeply")

// Parse reads one JSON value as JSON.parse does: numbers as float64 (too
// large ones as ±Inf, which Marshal writes as null, as JSON.stringify
// does), objects in JavaScript's member order, escaped lone surrogates
// kept (see the package comment). Bytes that are not UTF-8 become U+FFFD.
func Parse(data []byte) (any, error) {
	p := parser{b: data}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.b) {
		return nil, p.fail("unexpected data after the value")
	}
	return v, nil
}

// MaxNesting is how deep Parse reads: it recurses, and this bounds its
// stack on hostile input (encoding/json stops at the same depth).
const MaxNesting = 10000

type parser struct {
	b []byte
	i int
}

func (p *parser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrSyntax, what, p.i)
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if depth > MaxNesting {
		return nil, fmt.Errorf("%w: %w at offset %d", ErrSyntax, ErrTooDeep, p.i)
	}
	if p.i >= len(p.b) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case p.literal("true"):
		return true, nil
	case p.literal("false"):
		return false, nil
	case p.literal("null"):
		return nil, nil
	}
	return nil, p.fail("unexpected character")
}

func (p *parser) literal(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

func (p *parser) object(depth int) (any, error) {
	p.i++
	o := &Object{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return o, nil
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.fail("want an object key")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.fail("want ':'")
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		o.set(k.(string), v)
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return o, nil
		}
		return nil, p.fail("want ',' or '}'")
	}
}

func (p *parser) array(depth int) (any, error) {
	p.i++
	a := []any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return a, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return a, nil
		}
		return nil, p.fail("want ',' or ']'")
	}
}

func (p *parser) number() (any, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.fail("bad number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail("bad number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("bad number")
		}
	}
	// ParseFloat rounds correctly; out of range it returns ±Inf or 0 with
	// ErrRange, which are JavaScript's values too.
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.fail("bad number")
	}
	return f, nil
}

func (p *parser) string() (any, error) {
	p.i++ // opening quote
	var out []byte
	for {
		if p.i >= len(p.b) {
			return nil, p.fail("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c < 0x20:
			return nil, p.fail("control character in string")
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return nil, p.fail("unterminated escape")
			}
			e := p.b[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return nil, p.fail("bad \\u escape")
				}
				// A high surrogate escape followed by a low one is one
				// character; alone, each stays a lone surrogate.
				if r >= 0xD800 && r < 0xDC00 && p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if r2, ok := p.hex4(); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
						out = utf8.AppendRune(out, 0x10000+(r-0xD800)<<10+(r2-0xDC00))
						continue
					}
					p.i = save
				}
				out = appendWTF8(out, r)
			default:
				return nil, p.fail("bad escape")
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.i++
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				out = append(out, "\uFFFD"...)
			} else {
				out = append(out, p.b[p.i:p.i+n]...)
			}
			p.i += n
		}
	}
}

func (p *parser) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}
