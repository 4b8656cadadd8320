package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The id is found wherever the client puts it, in any split of the line,
// and never in what only looks like a key.
func TestIDScan(t *testing.T) {
	long := strings.Repeat("x", 3000)
	for _, tc := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"text":"` + long + `"}}`, `7`},
		{`{"method":"tools/call","params":{"text":"` + long + `"},"jsonrpc":"2.0","id":"a-1"}`, `"a-1"`},
		{`{ "id" : 12 , "method":"x"}`, `12`},
		{`{"method":"x","params":{"id":5}}`, ``},
		{`{"method":"x","params":{"text":"\"id\":5"}}`, ``},
		{`{"method":"x","params":"a \\","id":9}`, `9`},
		{`{"text":"\",\"id\":5,\"x\":\"","method":"x"}`, ``},
		{`{"text":"a \" b","id":8}`, `8`},
		{`{"method":"notifications/initialized"}`, ``},
		{`[{"id":1}]`, ``},
		{`{"id":"` + long + `"}`, ``},
		{`{"id":1,"id":2}`, `2`},
		{`{"id":3,"method":"tools/list"`, `3`}, // cut short after the id: still answered
		{`{"method":"tools/list","id":3`, ``},  // cut short in the id
		{`not json`, ``},
	} {
		for _, split := range []int{1, 7, len(tc.line)} {
			var s idScan
			for i := 0; i < len(tc.line); i += split {
				s.feed([]byte(tc.line[i:min(i+split, len(tc.line))]))
			}
			if got := string(s.id()); got != tc.want {
				t.Errorf("id of %.60q (fed %d bytes at a time) = %q, want %q", tc.line, split, got, tc.want)
			}
		}
	}
}

// On a JSON object, idScan finds what encoding/json finds as its
// top-level "id" (keys written with \u escapes aside: it reads keys raw).
func FuzzIDScan(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":7,"method":"x"}`, `{"method":"x","params":{"id":1,"a":[{"id":2}]},"id":"s"}`,
		`{"a":"\"id\":3","id":4}`, `{"id":1,"id":null}`, `{}`, `{"id":[1,{"id":2}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var top map[string]json.RawMessage
		if strings.Contains(line, `\u`) || json.Unmarshal([]byte(line), &top) != nil {
			return
		}
		var s idScan
		s.feed([]byte(line))
		want, ok := top["id"]
		if !ok || len(want) > maxIDBytes {
			want = nil
		}
		if got := s.id(); !bytes.Equal(got, bytes.TrimSpace(want)) {
			t.Errorf("id of %q = %q, encoding/json reads %q", line, got, want)
		}
	})
}
