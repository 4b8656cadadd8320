package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

type rec struct {
	Name  string `json:"name"`
	Count int    `json:"count,omitempty"`
	Note  string `json:"note,omitempty"`

	Fields Fields `json:"-"`
}

func (r *rec) UnmarshalJSON(b []byte) error {
	type plain rec
	return Unmarshal(b, (*plain)(r), &r.Fields)
}

func (r rec) MarshalJSON() ([]byte, error) {
	type plain rec
	return MarshalWith(plain(r), r.Fields)
}

func TestUnknownFieldsKeepTheirPlace(t *testing.T) {
	in := `{"future":{"a":[1,2.50,"x"]},"name":"a","zeta":null,"count":3}`
	var r rec
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	r.Count = 4
	r.Note = "new"
	out, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"future":{"a":[1,2.50,"x"]},"name":"a","zeta":null,"count":4,"note":"new"}`
	if string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
}

func TestOmittedKnownFieldIsDropped(t *testing.T) {
	var r rec
	if err := json.Unmarshal([]byte(`{"name":"a","count":3}`), &r); err != nil {
		t.Fatal(err)
	}
	r.Count = 0
	out, _ := Marshal(r)
	if string(out) != `{"name":"a"}` {
		t.Fatalf("got %s", out)
	}
}

func TestMarshalIndentMatchesJSONStringify(t *testing.T) {
	// JSON.stringify(v, null, 2) neither escapes <>& nor ends with a newline,
	// and prints empty arrays as [].
	v := map[string]any{"a": "<b>&</b>", "e": []string{}, "n": []int{1}}
	out, err := MarshalIndent(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": \"<b>&</b>\",\n  \"e\": [],\n  \"n\": [\n    1\n  ]\n}"
	if string(out) != want {
		t.Fatalf("got  %q\nwant %q", out, want)
	}
}

func TestSetAndDeleteUnknown(t *testing.T) {
	var r rec
	r.Name = "x"
	r.Fields.Set("ext", json.RawMessage(`true`))
	out, _ := Marshal(r)
	if string(out) != `{"ext":true,"name":"x"}` {
		t.Fatalf("got %s", out)
	}
	r.Fields.Delete("ext")
	out, _ = Marshal(r)
	if string(out) != `{"name":"x"}` {
		t.Fatalf("got %s", out)
	}
}

// decoderPairs is the obviously correct way to split an object, by
// json.Decoder tokens; the fast scanner must agree with it.
func decoderPairs(data []byte) ([]pair, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var out []pair
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, pair{tok.(string), raw})
	}
	return out, nil
}

func FuzzObjectPairs(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, ` { "a" : [1, {"b":"}"}] , "c\"d": "x\\"y" , "e":null,"f":-1.5e3,"g":true} `, `{"":""}`, `{"a":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			return // only valid objects reach objectPairs
		}
		want, err := decoderPairs(data)
		if err != nil {
			return
		}
		got, err := objectPairs(data)
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d pairs, want %d", data, len(got), len(want))
		}
		for i := range got {
			var a, b any
			json.Unmarshal(got[i].val, &a)
			json.Unmarshal(want[i].val, &b)
			if got[i].key != want[i].key || !reflect.DeepEqual(a, b) {
				t.Fatalf("%q: pair %d = %q:%s, want %q:%s", data, i, got[i].key, got[i].val, want[i].key, want[i].val)
			}
		}
	})
}

// Keys are written without the encoder when plain; any other key must come
// out exactly as encoding/json (without HTML escaping) writes it.
func TestKeysAreEscapedAsTheEncoderDoes(t *testing.T) {
	keys := []string{"plain-key_1", "quo\"te", "back\\slash", "tab\t", "nul\x00", "ünïcödé", "<&>", "line\u2028sep", "bad\xffutf8", "del\x7f"}
	var r rec
	for i, k := range keys {
		r.Fields.Set(k, json.RawMessage(strconv.Itoa(i)))
	}
	r.Name = "n"
	got, err := Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	want.WriteByte('{')
	for i, k := range keys {
		kb, _ := Marshal(k)
		fmt.Fprintf(&want, "%s:%d,", kb, i)
	}
	want.WriteString(`"name":"n"}`)
	if string(got) != want.String() {
		t.Fatalf("got  %s\nwant %s", got, want.Bytes())
	}
}

// A record must be an object: null decodes into nothing in encoding/json,
// and would otherwise pass for an empty record.
func TestNonObjectIsRefused(t *testing.T) {
	for _, in := range []string{"null", ` "x"`, "[1]", "3"} {
		var r rec
		if err := json.Unmarshal([]byte(in), &r); err == nil {
			t.Errorf("%s was accepted as a record", in)
		}
	}
	var r rec
	if err := json.Unmarshal([]byte(` {"name":"a","x":1}`), &r); err != nil {
		t.Fatal(err)
	}
	if v, ok := r.Fields.Get("x"); !ok || string(v) != "1" {
		t.Fatalf("unknown field x = %q, %v", v, ok)
	}
}

func TestInterleaveKeepsKeptElementsBetweenTheirNeighbours(t *testing.T) {
	kept := func(idx ...int) []Kept {
		var out []Kept
		for _, i := range idx {
			out = append(out, Kept{Index: i})
		}
		return out
	}
	show := func(s []Slot) string {
		var b strings.Builder
		for _, x := range s {
			if x.Kept {
				fmt.Fprintf(&b, "K%d ", x.I)
			} else {
				fmt.Fprintf(&b, "%d ", x.I)
			}
		}
		return strings.TrimSpace(b.String())
	}
	cases := []struct {
		name string
		at   []int
		kept []Kept
		want string
	}{
		{"nothing kept", []int{1, 2}, nil, "0 1"},
		{"in the middle, unchanged", []int{1, 3}, kept(1), "0 K0 1"},
		{"first and last", []int{2, 3}, kept(0, 3), "K0 0 1 K1"},
		{"neighbour before removed", []int{3}, kept(1), "K0 0"},
		{"neighbour after removed", []int{1}, kept(1), "0 K0"},
		{"before what was added", []int{1, 0, 0}, kept(1), "0 K0 1 2"},
		{"all removed", nil, kept(0, 2), "K0 K1"},
	}
	for _, c := range cases {
		if got := show(Interleave(c.at, c.kept)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
