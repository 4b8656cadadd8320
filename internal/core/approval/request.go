// Package approval is the lead's side of Claude Code's permission, sandbox
// and plan flows (docs/PROTOCOL.md §8-§9): it finds
// the requests teammates left in the lead's inbox for an answer, and writes
// the answers exactly as the teammates check them.
//
// Claude Code's replies vanish from an inbox once delivered, so the inbox
// cannot tell whether a request was answered: paneteam keeps its own locked
// record of the ids it answered (answered.go).
package approval

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/paneteam/paneteam/mailbox"
)

// Kind is the kind of request.
type Kind string

const (
	// KindPermission is a tool call waiting for permission_response.
	KindPermission Kind = "permission"
	// KindSandbox is a network host waiting for sandbox_permission_response.
	KindSandbox Kind = "sandbox"
	// KindPlan is a plan waiting for plan_approval_response.
	KindPlan Kind = "plan"
)

// Request is one request a teammate sent the lead. Text fields hold what
// the teammate wrote, unchanged: render them with Visible before they reach
// a terminal.
type Request struct {
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// From is the teammate: the inbox entry's from, which Claude Code's
	// lead trusts over any name inside the frame (§8).
	From      string    `json:"teammate"`
	Timestamp string    `json:"timestamp"`
	Time      time.Time `json:"-"`

	// Permission requests.
	ToolName    string          `json:"tool_name,omitempty"`
	ToolUseID   string          `json:"tool_use_id,omitempty"`
	Description string          `json:"description,omitempty"`
	Input       json.RawMessage `json:"input,omitempty"`
	Suggestions json.RawMessage `json:"permission_suggestions,omitempty"`

	// Sandbox requests.
	Host string `json:"host,omitempty"`

	// Plan requests.
	PlanFilePath string `json:"plan_file_path,omitempty"`
	PlanContent  string `json:"plan_content,omitempty"`
	// PlanConflict: two different plans came under this id, so no answer
	// can say which one was approved (Claude Code then omits planDigest).
	PlanConflict bool `json:"plan_conflict,omitempty"`

	// Frame is the frame as the teammate wrote it.
	Frame json.RawMessage `json:"frame"`
}

// wire is the union of the request frames' fields (§8).
type wire struct {
	Type string `json:"type"`
	// permission_request
	RequestID   *string         `json:"request_id"`
	AgentID     *string         `json:"agent_id"`
	ToolName    *string         `json:"tool_name"`
	ToolUseID   *string         `json:"tool_use_id"`
	Description *string         `json:"description"`
	Input       json.RawMessage `json:"input"`
	Suggestions json.RawMessage `json:"permission_suggestions"`
	// sandbox_permission_request and plan_approval_request
	CamelID     *string `json:"requestId"`
	WorkerName  *string `json:"workerName"`
	HostPattern *struct {
		Host *string `json:"host"`
	} `json:"hostPattern"`
	PlanFilePath *string `json:"planFilePath"`
	PlanContent  *string `json:"planContent"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// parse reads one inbox entry as a request. It returns ok=false for
// anything else, and for a request Claude Code's own lead would drop:
// permission_request whose agent_id is not the entry's from, sandbox
// request whose workerName is not the entry's from (§9), or one without
// the fields an answer needs.
func parse(m mailbox.Message) (Request, bool) {
	t := strings.TrimSpace(m.Text)
	if !strings.HasPrefix(t, "{") || !strings.Contains(t, "_request") {
		return Request{}, false // cheap: most entries are plain messages
	}
	var w wire
	if json.Unmarshal([]byte(t), &w) != nil {
		return Request{}, false
	}
	r := Request{From: m.From, Timestamp: m.Timestamp, Time: m.Time(), Frame: json.RawMessage(t)}
	switch w.Type {
	case mailbox.TypePermissionRequest:
		if w.AgentID == nil || *w.AgentID != m.From || str(w.RequestID) == "" || w.ToolName == nil {
			return Request{}, false
		}
		r.Kind, r.ID = KindPermission, *w.RequestID
		r.ToolName, r.ToolUseID, r.Description = *w.ToolName, str(w.ToolUseID), str(w.Description)
		r.Input, r.Suggestions = w.Input, w.Suggestions
	case mailbox.TypeSandboxPermissionReq:
		if w.WorkerName == nil || *w.WorkerName != m.From || str(w.CamelID) == "" ||
			w.HostPattern == nil || w.HostPattern.Host == nil {
			return Request{}, false
		}
		r.Kind, r.ID, r.Host = KindSandbox, *w.CamelID, *w.HostPattern.Host
	case mailbox.TypePlanApprovalRequest:
		// Claude Code's schema: from, timestamp, planFilePath, planContent
		// and requestId are all strings; the frame's from is replaced by
		// the entry's (§8).
		if str(w.CamelID) == "" || w.PlanContent == nil || w.PlanFilePath == nil {
			return Request{}, false
		}
		r.Kind, r.ID = KindPlan, *w.CamelID
		r.PlanFilePath, r.PlanContent = *w.PlanFilePath, *w.PlanContent
	default:
		return Request{}, false
	}
	if r.From == "" {
		return Request{}, false
	}
	return r, true
}

// key identifies a request: its id and who sent it, so that a teammate
// cannot shadow another's request by reusing its id.
type key struct{ id, from string }

func (r Request) key() key { return key{r.ID, lower(r.From)} }

func lower(s string) string { return strings.ToLower(s) }
