// TEMPORARY until approval lands: package approval (pending requests and
// the record of answered ones) replaces this file; on merge, point
// pendingRequests at it and delete this file.

package teamwatch

import (
	"encoding/json"
	"strings"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

func init() { pendingRequests = scanPendingRequests }

// scanPendingRequests counts, per teammate, the permission, sandbox and
// plan requests in the lead's inbox and archive (Claude Code 2.1.330,
// PROTOCOL-2.1.330.md §6-7) that no response in the teammate's inbox or
// archive answers yet, from teammates still in the team. It cannot see
// answers Claude Code already delivered and deleted; the approval
// package's answered record can.
func scanPendingRequests(root, teamName string) (map[string]int, error) {
	t, cfg, err := team.Open(root, teamName)
	if err != nil {
		return nil, err
	}
	lead := mailbox.New(t.InboxPath(team.LeadName), lockfile.Options{})
	msgs, err := allMessages(lead)
	if err != nil {
		return nil, err
	}
	type req struct{ from, id string }
	var reqs []req
	for _, m := range msgs {
		if id, ok := requestID(m.Text); ok && cfg.Member(m.From) != nil && !strings.EqualFold(m.From, team.LeadName) {
			reqs = append(reqs, req{m.From, id})
		}
	}
	out := map[string]int{}
	answered := map[string]map[string]bool{}
	for _, r := range reqs {
		name := cfg.Member(r.from).Name
		if answered[name] == nil {
			in := mailbox.New(t.InboxPath(name), lockfile.Options{})
			replies, err := allMessages(in)
			if err != nil {
				return nil, err
			}
			answered[name] = map[string]bool{}
			for _, m := range replies {
				if id, ok := responseID(m.Text); ok {
					answered[name][id] = true
				}
			}
		}
		if !answered[name][r.id] {
			out[name]++
		}
	}
	return out, nil
}

func allMessages(in *mailbox.Inbox) ([]mailbox.Message, error) {
	cur, err := in.ReadAll()
	if err != nil {
		return nil, err
	}
	old, err := in.Archived()
	if err != nil {
		return nil, err
	}
	return append(old, cur...), nil
}

type frameIDs struct {
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	ReqID     string `json:"request_id"`
}

func parseIDs(text string) (frameIDs, bool) {
	var f frameIDs
	if !strings.HasPrefix(strings.TrimSpace(text), "{") || json.Unmarshal([]byte(text), &f) != nil {
		return f, false
	}
	return f, true
}

func requestID(text string) (string, bool) {
	f, ok := parseIDs(text)
	switch {
	case !ok:
		return "", false
	case f.Type == mailbox.TypePermissionRequest && f.ReqID != "":
		return f.ReqID, true
	case (f.Type == mailbox.TypeSandboxPermissionReq || f.Type == mailbox.TypePlanApprovalRequest) && f.RequestID != "":
		return f.RequestID, true
	}
	return "", false
}

func responseID(text string) (string, bool) {
	f, ok := parseIDs(text)
	switch {
	case !ok:
		return "", false
	case f.Type == mailbox.TypePermissionResponse && f.ReqID != "":
		return f.ReqID, true
	case (f.Type == mailbox.TypeSandboxPermissionResp || f.Type == mailbox.TypePlanApprovalResponse) && f.RequestID != "":
		return f.RequestID, true
	}
	return "", false
}
