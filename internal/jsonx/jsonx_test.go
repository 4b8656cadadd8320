package jsonx

import (
	"encoding/json"
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
