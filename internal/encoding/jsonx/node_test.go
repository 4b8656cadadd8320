package jsonx_test

import (
	"bytes"
	"testing"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestMarshalIndentAgainstNode holds the package comment to what Node's
// JSON.stringify(v, null, 2) writes for the same value: the same bytes,
// but for the escapes encoding/json writes for U+2028, U+2029 and a byte
// that is not UTF-8, where JavaScript writes the character.
func TestMarshalIndentAgainstNode(t *testing.T) {
	same := map[string]any{
		"html":    "<b>&amp;</b>",
		"empty":   []string{},
		"list":    []any{1, 2.5, 1e21, 1e-7, true, nil},
		"control": "nul\x00 tab\t nl\n bs\b ff\f cr\r us\x1f del\x7f",
		"quotes":  `"q" \ /`,
		"unicode": "é 中文 😀 \uFFFD",
		"nested":  map[string]any{"z": 1, "a": []map[string]int{{"k": 1}}},
	}
	got, err := jsonx.MarshalIndent(same)
	if err != nil {
		t.Fatal(err)
	}
	if js := testutil.JSStringify(t, got); !bytes.Equal(got, js) {
		t.Errorf("jsonx and JSON.stringify differ\njsonx: %s\nnode:  %s", got, js)
	}

	// The differences the package comment names, each on its own.
	for _, tc := range []struct {
		in, jsonx, node string
	}{
		{"line\u2028sep", `"line\u2028sep"`, "\"line\u2028sep\""},
		{"para\u2029sep", `"para\u2029sep"`, "\"para\u2029sep\""},
		{"bad\xffbyte", `"bad\ufffdbyte"`, "\"bad\uFFFDbyte\""},
	} {
		got, err := jsonx.MarshalIndent(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.jsonx {
			t.Errorf("jsonx wrote %q as %s, want %s", tc.in, got, tc.jsonx)
		}
		if js := testutil.JSStringify(t, got); string(js) != tc.node {
			t.Errorf("JSON.stringify wrote %q as %s, want %s", tc.in, js, tc.node)
		}
	}
}
