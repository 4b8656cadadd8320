package team

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
)

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("kept row is not JSON: %v\n%s", err, b)
	}
	return buf.String()
}

// FuzzDecodeConfig: decoding any config.json never panics; one that
// decodes encodes again with every member row it could not read kept, in
// order and unchanged but for the indent it is written at, and the rows it
// could read read the same after the trip, which writes the same bytes
// again.
func FuzzDecodeConfig(f *testing.F) {
	f.Add([]byte(`{"name":"t","createdAt":1,"leadAgentId":"team-lead@t","members":[{"agentId":"team-lead@t","name":"team-lead","joinedAt":1,"tmuxPaneId":"","cwd":"/","subscriptions":[]}]}`))
	f.Add([]byte("{\n  \"name\": \"t\",\n  \"members\": [\n    {\n      \"name\": \"a\"\n    },\n    {\n      \"name\": 42\n    },\n    null,\n    7\n  ],\n  \"x\": [1]\n}"))
	f.Add([]byte(`{"members":[{"name":"a","joinedAt":"yesterday","paneteam":{"pid":"x"}},{"name":"b","isActive":"yes"},{"name":"c","unknown":{"a":1}}],"paneteam":{"tmuxSocket":"/s"}}`))
	f.Add([]byte(`{"members":null}`))
	f.Add([]byte(`{"createdAt":"x","members":[{"name":1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var cfg Config
		if json.Unmarshal(b, &cfg) != nil {
			return
		}
		out, err := cfg.Encode()
		if err != nil {
			t.Fatalf("decoded config does not encode: %v", err)
		}
		var again Config
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("re-decode: %v\n%s", err, out)
		}
		if len(again.kept) != len(cfg.kept) {
			t.Fatalf("%d rows kept, %d after a rewrite:\n%s", len(cfg.kept), len(again.kept), out)
		}
		for i := range cfg.kept {
			if compact(t, again.kept[i].Raw) != compact(t, cfg.kept[i].Raw) {
				t.Fatalf("kept row %d changed:\n%s\nbecame\n%s", i, cfg.kept[i].Raw, again.kept[i].Raw)
			}
		}
		if len(again.Members) != len(cfg.Members) {
			t.Fatalf("%d members, %d after a rewrite:\n%s", len(cfg.Members), len(again.Members), out)
		}
		for i, m := range cfg.Members {
			if a := again.Members[i]; a.Name != m.Name || a.AgentID != m.AgentID || a.JoinedAt != m.JoinedAt || a.Active() != m.Active() {
				t.Fatalf("member %d: %+v became %+v", i, m, a)
			}
		}
		twice, err := again.Encode()
		if err != nil || !bytes.Equal(twice, out) {
			t.Fatalf("a second rewrite changes the config (%v):\n%s\n\n%s", err, out, twice)
		}
	})
}

// FuzzConfigOnePass: a config.json the one pass reads (unmarshalOnePass)
// reads as the row-by-row path (each row through Member.UnmarshalJSON)
// reads it, unknown keys and their order included: both write back the
// same bytes.
func FuzzConfigOnePass(f *testing.F) {
	f.Add([]byte(`{"name":"t","createdAt":1,"leadAgentId":"team-lead@t","members":[{"agentId":"team-lead@t","name":"team-lead","joinedAt":1,"tmuxPaneId":"","cwd":"/","subscriptions":[]}]}`))
	f.Add([]byte(`{"members":[{"name":"c","unknown":{"a":1},"paneteam":{"tmuxSocket":"/s","z":2}}],"zz":[1],"paneteam":{"tmuxSocket":"/s"}}`))
	f.Add([]byte(`{"members":[],"members":[{"name":"a"}]}`))
	f.Add([]byte(`{"members":[{"name":"a","NAME":"b","name":"c"}]}`))
	f.Add([]byte(`{"members":[null]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var one Config
		if !one.unmarshalOnePass(b) {
			return
		}
		type plain Config
		var careful Config
		if err := jsonx.Unmarshal(b, (*plain)(&careful), &careful.extra); err != nil {
			t.Fatalf("one pass read what the row-by-row path refuses (%v):\n%s", err, b)
		}
		for i := range careful.Members {
			careful.Members[i].at = i + 1
		}
		got, gerr := one.Encode()
		want, werr := careful.Encode()
		if (gerr == nil) != (werr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("one pass writes (%v)\n%s\nthe row-by-row path (%v)\n%s", gerr, got, werr, want)
		}
	})
}

// FuzzDecodeTask: parsing any task file never panics; one that parses
// encodes to a file that parses to the same task, and writes the same
// bytes again. A file that does not parse is never rewritten (Update
// refuses it: TestMalformedTaskFilesAreSkippedAndNeverRewritten).
func FuzzDecodeTask(f *testing.F) {
	f.Add([]byte(`{"id":"1","subject":"s","description":"d","status":"pending","blocks":[],"blockedBy":[]}`), "1")
	f.Add([]byte(`{"id":"2","subject":"s","description":"","status":"in_progress","owner":"a","blocks":["3"],"blockedBy":null,"metadata":{"note":"x"},"z":1}`), "2")
	f.Add([]byte(`{"id":"6","subject":"s","status":"pending","owner":42}`), "6")
	f.Add([]byte(`{"id":"7","subject":"s","status":"completed","blocks":"3"}`), "7")
	f.Fuzz(func(t *testing.T, b []byte, id string) {
		task, err := parseTask(b, id)
		if err != nil {
			return
		}
		out, err := task.Encode()
		if err != nil {
			t.Fatalf("parsed task does not encode: %v", err)
		}
		again, err := parseTask(out, id)
		if err != nil {
			t.Fatalf("re-parse: %v\n%s", err, out)
		}
		if again.ID != task.ID || again.Subject != task.Subject || again.Owner != task.Owner || again.Status != task.Status ||
			len(again.BlockedBy) != len(task.BlockedBy) || len(again.Blocks) != len(task.Blocks) {
			t.Fatalf("%+v became %+v", task, again)
		}
		twice, err := again.Encode()
		if err != nil || !bytes.Equal(twice, out) {
			t.Fatalf("a second rewrite changes the task (%v):\n%s\n\n%s", err, out, twice)
		}
	})
}
