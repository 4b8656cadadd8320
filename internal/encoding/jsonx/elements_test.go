package jsonx

import (
	"encoding/json"
	"strings"
	"testing"
)

func deepArray(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// An element nested deeper than encoding/json reads (JSON.parse reads it)
// costs that element: the others come back, and it comes back as written.
func TestElementsKeepsADeepElement(t *testing.T) {
	deep := `{"from": "alice", "deep": ` + deepArray(100000) + `}`
	doc := "[\n  {\"from\": \"bob\"},\n  " + deep + " ,\n  {\"from\": \"carol\"}\n]"
	if json.Unmarshal([]byte(doc), new([]json.RawMessage)) == nil {
		t.Fatal("encoding/json now reads 100000 levels: this test no longer tests anything")
	}
	raws, err := Elements([]byte(doc))
	if err != nil {
		t.Fatalf("Elements: %v", err)
	}
	if len(raws) != 3 || string(raws[0]) != `{"from": "bob"}` || string(raws[1]) != deep || string(raws[2]) != `{"from": "carol"}` {
		t.Fatalf("Elements gave %d elements, want bob's, the deep one as written, carol's", len(raws))
	}
}

// Deep or not, what is not valid JSON stays an error, and so does a
// document that is not an array.
func TestElementsRefusesWhatIsNotAnArray(t *testing.T) {
	for _, doc := range []string{
		"[" + deepArray(20000) + ",}",
		"[" + deepArray(20000) + ", tru]",
		"[" + deepArray(20000) + "] x",
		"[" + strings.Repeat("[", 20000) + "]",
		`{"a": ` + deepArray(20000) + `}`,
		"[" + deepArray(20000) + `, {"a" 1}]`,
		"[" + deepArray(20000) + `, {"a": 1,}]`,
		"[" + deepArray(20000) + `, "\x01"]`,
		"[" + strings.Repeat("{", 20000) + strings.Repeat("}", 20000) + "]",
	} {
		if raws, err := Elements([]byte(doc)); err == nil {
			t.Errorf("Elements(%.40q…) = %d elements, want an error", doc, len(raws))
		}
	}
}

// Below encoding/json's depth, validDeep agrees with json.Valid and
// Elements with json.Unmarshal into []json.RawMessage.
func FuzzElements(f *testing.F) {
	for _, s := range []string{`[]`, `[1, "a", {"b": [null, true]}]`, `[{"a":1},]`, `{"a":[]}`, `[1 2]`, `["\u00"]`, ` [ ] `, `[-0.5e3, {}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		if got, want := validDeep(b) == nil, json.Valid(b); got != want {
			t.Fatalf("validDeep(%q) valid=%v, json.Valid says %v", s, got, want)
		}
		var want []json.RawMessage
		werr := json.Unmarshal(b, &want)
		got, err := Elements(b)
		if (err == nil) != (werr == nil) || len(got) != len(want) {
			t.Fatalf("Elements(%q) = %q, %v; json.Unmarshal gives %q, %v", s, got, err, want, werr)
		}
		for i := range want {
			if string(got[i]) != string(want[i]) {
				t.Fatalf("Elements(%q)[%d] = %q, want %q", s, i, got[i], want[i])
			}
		}
	})
}

func TestCutMember(t *testing.T) {
	deep := deepArray(20000)
	doc := `{"name": "crew", "members": [1], "x": ` + deep + `, "members": [2, ` + deep + `]}`
	rest, val, err := CutMember([]byte(doc), "members")
	if err != nil {
		t.Fatal(err)
	}
	if string(val) != "[2, "+deep+"]" || string(rest) != `{"name": "crew", "members": [1], "x": `+deep+`, "members": []}` {
		t.Fatalf("CutMember cut the wrong value: %.60q / %.60q", val, rest)
	}
	if _, _, err := CutMember([]byte(`{"members": [`+deep+`}`), "members"); err == nil {
		t.Fatal("CutMember took an object that is not valid JSON")
	}
}

func TestMemberElements(t *testing.T) {
	for _, tc := range []struct {
		data string
		want []string
		ok   bool
	}{
		{`{"a":1,"members":[{"x":[1,{"y":"]"}]}, "s\"]" ,null , 2.5e3,[]],"b":{}}`, []string{`{"x":[1,{"y":"]"}]}`, `"s\"]"`, `null`, `2.5e3`, `[]`}, true},
		{`{"members": [ ] }`, []string{}, true},
		{`{"a":1}`, nil, false},
		{`{"members":{}}`, nil, false},
		{`{"members":null}`, nil, false},
		{`{"members":[1],"members":[2]}`, nil, false},
	} {
		got, ok := MemberElements([]byte(tc.data), "members")
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.data, ok, tc.ok)
			continue
		}
		var s []string
		for _, g := range got {
			s = append(s, string(g))
		}
		if ok && strings.Join(s, "|") != strings.Join(tc.want, "|") || ok && len(s) != len(tc.want) {
			t.Errorf("%s: got %q, want %q", tc.data, s, tc.want)
		}
	}
}
