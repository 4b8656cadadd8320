package approval

// TEMPORARY until provenance lands: provenance.InputDigest and
// provenance.PlanDigest (another branch) compute these; on merge, point the
// seams in digest.go at them and delete this file.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// tempInputDigest is Claude Code 2.1.330's input_digest (PROTOCOL-2.1.330.md
// §7): hex SHA-256 of toolName, a 0x00 byte and the canonical JSON of input.
func tempInputDigest(toolName string, input json.RawMessage) (string, error) {
	v, err := parseOrdered(input)
	if err != nil {
		return "", fmt.Errorf("digest the input of %s: %w", toolName, err)
	}
	var buf bytes.Buffer
	writeJS(&buf, canonical(v, 0))
	h := sha256.New()
	h.Write([]byte(toolName))
	h.Write([]byte{0})
	h.Write(buf.Bytes())
	return hex.EncodeToString(h.Sum(nil)), nil
}

// tempPlanDigest is planDigest: hex SHA-256 of the plan's UTF-8 bytes (§7).
func tempPlanDigest(content string) string {
	s := sha256.Sum256([]byte(content))
	return hex.EncodeToString(s[:])
}

// object keeps keys in JavaScript's own property order.
type object struct {
	keys []string
	vals map[string]any
}

func parseOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		o := &object{vals: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			// JSON.parse: a repeated key keeps its first place, last value.
			if _, dup := o.vals[k]; !dup {
				o.keys = append(o.keys, k)
			}
			o.vals[k] = v
		}
		_, err := dec.Token()
		return jsOrder(o), err
	default:
		return t, nil
	}
}

// canonicalDepth: Claude Code sorts keys down to this depth (arrays count
// as a level) and leaves deeper values as they are (§7).
const canonicalDepth = 32

func canonical(v any, depth int) any {
	if depth > canonicalDepth {
		return v
	}
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = canonical(e, depth+1)
		}
		return out
	case *object:
		o := &object{keys: append([]string(nil), t.keys...), vals: map[string]any{}}
		sort.SliceStable(o.keys, func(i, j int) bool { return utf16Less(o.keys[i], o.keys[j]) })
		for _, k := range o.keys {
			o.vals[k] = canonical(t.vals[k], depth+1)
		}
		return jsOrder(o) // Object.fromEntries puts index keys first again
	}
	return v
}

func utf16Less(a, b string) bool {
	x, y := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return len(x) < len(y)
}

// jsOrder puts array-index keys ("0" … "4294967294") first in numeric
// order, as every JavaScript object does, and keeps the others in order.
func jsOrder(o *object) *object {
	var idx, rest []string
	for _, k := range o.keys {
		if isIndex(k) {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, _ := strconv.ParseUint(idx[i], 10, 64)
		b, _ := strconv.ParseUint(idx[j], 10, 64)
		return a < b
	})
	o.keys = append(idx, rest...)
	return o
}

func isIndex(k string) bool {
	if k == "" || (len(k) > 1 && k[0] == '0') {
		return false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < math.MaxUint32
}

// writeJS serialises like JSON.stringify.
func writeJS(buf *bytes.Buffer, v any) {
	switch t := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(t))
	case json.Number:
		buf.WriteString(jsNumber(string(t)))
	case string:
		writeJSString(buf, t)
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJS(buf, e)
		}
		buf.WriteByte(']')
	case *object:
		buf.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSString(buf, k)
			buf.WriteByte(':')
			writeJS(buf, t.vals[k])
		}
		buf.WriteByte('}')
	}
}

func writeJSString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(buf, `\u%04x`, r)
			} else {
				buf.WriteRune(r)
			}
		}
	}
	buf.WriteByte('"')
}

// jsNumber formats a JSON number as JavaScript's Number#toString does
// after JSON.parse read it as a double.
func jsNumber(lit string) string {
	f, err := strconv.ParseFloat(lit, 64)
	if math.IsInf(f, 0) {
		return "null" // JSON.parse gives Infinity, JSON.stringify writes null
	}
	if err != nil || f == 0 {
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // shortest round-trip digits
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	ex := strconv.Itoa(abs(n - 1))
	if k == 1 {
		return sign + digits + "e" + es + ex
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + es + ex
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
