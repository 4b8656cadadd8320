package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// Record is paneteam's record of one answer it wrote.
type Record struct {
	ID       string `json:"id"`
	From     string `json:"teammate"`
	Kind     Kind   `json:"kind"`
	Approved bool   `json:"approved"`
	At       string `json:"at"`
}

// AnsweredPath is paneteam's record of the requests it answered for the
// team's lead: teams/<team>/paneteam/answered.json. Claude Code reads
// only config.json and inboxes/ in a team folder, so a folder of
// paneteam's own beside them is never touched by it. The record is needed
// because a teammate's Claude Code removes a reply from its inbox once
// delivered (docs/PROTOCOL.md §6): the files alone cannot tell an
// answered request from a waiting one.
func AnsweredPath(t team.Team) string {
	return filepath.Join(t.Dir(), "paneteam", "answered.json")
}

// readAnswered reads the record without its lock (it is only ever
// replaced atomically). A missing record is empty.
func readAnswered(path string) ([]Record, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read answered requests: %w", err)
	}
	return decodeAnswered(path, b)
}

func decodeAnswered(path string, b []byte) ([]Record, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	var out []Record
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s does not parse (%v): it records which requests paneteam answered; "+
			"fix or remove it (removing it lets answered requests be listed and answered again)", path, err)
	}
	return out, nil
}

func encodeAnswered(as []Record) ([]byte, error) {
	if as == nil {
		as = []Record{}
	}
	return jsonx.MarshalIndent(as)
}

// ensureAnswered creates an empty record so that it can be locked.
func ensureAnswered(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), lockfile.DirPerm); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if _, err := lockfile.CreateExclusive(path, []byte("[]")); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return nil
}

func findRecord(as []Record, r Request) (Record, bool) {
	for _, a := range as {
		if (key{a.ID, lower(a.From)}) == r.key() {
			return a, true
		}
	}
	return Record{}, false
}
