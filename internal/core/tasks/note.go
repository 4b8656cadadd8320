package tasks

import (
	"bytes"
	"encoding/json"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
	"github.com/paneteam/paneteam/team"
)

// noteKey is the key of a task's metadata where its note is kept.
const noteKey = "note"

// NoteOf is the note kept on t ("" when none, or when the metadata is not
// an object with a string note).
func NoteOf(t *team.Task) string {
	var m map[string]json.RawMessage
	if len(t.Metadata) == 0 || json.Unmarshal(t.Metadata, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[noteKey], &s) != nil {
		return ""
	}
	return s
}

// setKey sets key to the string v in the JSON object md (absent or null
// is an empty object), keeping its other keys in their order and bytes.
func setKey(md json.RawMessage, key, v string) (json.RawMessage, error) {
	var f jsonx.Fields
	var none struct{}
	if t := bytes.TrimSpace(md); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := jsonx.Unmarshal(t, &none, &f); err != nil {
			return nil, err
		}
	}
	f.Set(key, jsonx.AppendString(nil, v))
	return jsonx.MarshalWith(none, f)
}
