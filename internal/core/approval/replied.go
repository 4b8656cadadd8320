package approval

import (
	"bytes"
	"encoding/json"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// repliedIDs returns the ids of the requests that a reply from the lead
// still in name's inbox or archive answers: a reply written by some other
// means than 'paneteam approve' (another tool, 'paneteam send --type') is
// an answer all the same while it is on disk. Claude Code removes a reply
// once delivered (docs/PROTOCOL.md §6), which is why paneteam's own
// record (answered.go) is still needed.
func repliedIDs(t team.Team, name string) (map[string]bool, error) {
	path := t.InboxPath(name)
	msgs, err := readArchive(mailbox.ArchivePath(path), []byte("_response"))
	if err != nil {
		return nil, err
	}
	inbox, err := mailbox.New(path, lockfile.Options{}).ReadAll()
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, m := range append(msgs, inbox...) {
		if m.From != team.LeadName || !bytes.Contains([]byte(m.Text), []byte("_response")) {
			continue
		}
		var f struct {
			Type      string `json:"type"`
			RequestID string `json:"request_id"`
			CamelID   string `json:"requestId"`
		}
		if json.Unmarshal([]byte(m.Text), &f) != nil {
			continue
		}
		switch f.Type {
		case "permission_response":
			ids[f.RequestID] = true
		case "sandbox_permission_response", "plan_approval_response":
			ids[f.CamelID] = true
		}
	}
	return ids, nil
}
