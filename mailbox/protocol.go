package mailbox

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
)

// Protocol message types: a JSON object serialised into a message's text.
const (
	TypeIdle                  = "idle_notification"
	TypeShutdownRequest       = "shutdown_request"
	TypeShutdownApproved      = "shutdown_approved"
	TypeShutdownRejected      = "shutdown_rejected"
	TypePlanApprovalRequest   = "plan_approval_request"
	TypePlanApprovalResponse  = "plan_approval_response"
	TypePermissionRequest     = "permission_request"
	TypePermissionResponse    = "permission_response"
	TypeModeSetRequest        = "mode_set_request"
	TypeTaskAssignment        = "task_assignment"
	TypeSandboxPermissionReq  = "sandbox_permission_request"
	TypeSandboxPermissionResp = "sandbox_permission_response"
	TypeTeamPermissionUpdate  = "team_permission_update"
	// Since Claude Code 2.1.330 (docs/PROTOCOL.md §8, §16).
	TypeTaskCompleted      = "task_completed"
	TypeTeammateTerminated = "teammate_terminated"
)

// Idle reasons and completion statuses of idle_notification.
const (
	IdleAvailable   = "available"
	IdleInterrupted = "interrupted"
	IdleFailed      = "failed"
)

// PermissionModes are the modes Claude Code knows: a
// plan_approval_response with any other permissionMode is invalid
// (docs/PROTOCOL.md §8), and spawn-pane offers exactly these.
var PermissionModes = []string{"default", "plan", "acceptEdits", "auto", "dontAsk", "bypassPermissions"}

// Each struct lists its fields in the order Claude Code writes them; the
// type field comes first.

type IdleNotification struct {
	Type            string `json:"type"`
	From            string `json:"from"`
	Timestamp       string `json:"timestamp"`
	IdleReason      string `json:"idleReason,omitempty"`
	Summary         string `json:"summary,omitempty"`
	CompletedTaskID string `json:"completedTaskId,omitempty"`
	CompletedStatus string `json:"completedStatus,omitempty"`
	FailureReason   string `json:"failureReason,omitempty"`
	// Result is the final text of the turn (Claude Code: at most 4000
	// characters plus "[result truncated…]", docs/PROTOCOL.md §8).
	Result string `json:"result,omitempty"`
}

type ShutdownRequest struct {
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	From      string `json:"from"`
	Reason    string `json:"reason,omitempty"`
	Timestamp string `json:"timestamp"`
}

type ShutdownApproved struct {
	Type        string `json:"type"`
	RequestID   string `json:"requestId"`
	From        string `json:"from"`
	Timestamp   string `json:"timestamp"`
	PaneID      string `json:"paneId,omitempty"`
	BackendType string `json:"backendType,omitempty"`
}

type ShutdownRejected struct {
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	From      string `json:"from"`
	Reason    string `json:"reason"`
	Timestamp string `json:"timestamp"`
}

type PlanApprovalRequest struct {
	Type         string `json:"type"`
	From         string `json:"from"`
	Timestamp    string `json:"timestamp"`
	PlanFilePath string `json:"planFilePath"`
	PlanContent  string `json:"planContent"`
	RequestID    string `json:"requestId"`
}

type PlanApprovalResponse struct {
	Type           string `json:"type"`
	RequestID      string `json:"requestId"`
	Approved       bool   `json:"approved"`
	Feedback       string `json:"feedback,omitempty"`
	Timestamp      string `json:"timestamp"`
	PermissionMode string `json:"permissionMode,omitempty"`
	// PlanDigest binds an approval to the plan shown (PlanDigest of the
	// request's planContent); a keyed teammate rejects an approval without
	// the right one (docs/PROTOCOL.md §9).
	PlanDigest string `json:"planDigest,omitempty"`
}

type PermissionRequest struct {
	Type                  string          `json:"type"`
	RequestID             string          `json:"request_id"`
	AgentID               string          `json:"agent_id"`
	ToolName              string          `json:"tool_name"`
	ToolUseID             string          `json:"tool_use_id"`
	Description           string          `json:"description"`
	Input                 json.RawMessage `json:"input"`
	PermissionSuggestions json.RawMessage `json:"permission_suggestions"`
	// An MCP skill's request also names the skill and its server; its
	// input digest covers them (provenance.RequestDigest).
	ToolKind  string          `json:"tool_kind,omitempty"`
	MCPServer json.RawMessage `json:"mcp_server,omitempty"`
	MCPSkill  json.RawMessage `json:"mcp_skill,omitempty"`
}

// Subtypes of permission_response.
const (
	PermissionSuccess = "success"
	PermissionError   = "error"
)

type PermissionResponse struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Subtype   string `json:"subtype"`
	// ToolUseID and ApprovedRequest bind the verdict to the request
	// (Claude Code, docs/PROTOCOL.md §9): a worker refuses a
	// verdict whose ids or input digest differ from its own.
	ToolUseID       string              `json:"tool_use_id,omitempty"`
	ApprovedRequest *ApprovedRequest    `json:"approved_request,omitempty"`
	Response        *PermissionDecision `json:"response,omitempty"`
	Error           string              `json:"error,omitempty"`
}

// ApprovedRequest names the request a permission verdict answers.
type ApprovedRequest struct {
	ToolUseID   string `json:"tool_use_id"`
	ToolName    string `json:"tool_name"`
	InputDigest string `json:"input_digest"`
}

type PermissionDecision struct {
	UpdatedInput      json.RawMessage `json:"updated_input"`
	PermissionUpdates json.RawMessage `json:"permission_updates"`
}

type SandboxPermissionRequest struct {
	Type        string      `json:"type"`
	RequestID   string      `json:"requestId"`
	WorkerID    string      `json:"workerId"`
	WorkerName  string      `json:"workerName"`
	WorkerColor string      `json:"workerColor"`
	HostPattern HostPattern `json:"hostPattern"`
	CreatedAt   int64       `json:"createdAt"`
}

type HostPattern struct {
	Host string `json:"host"`
}

type SandboxPermissionResponse struct {
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	// Host must equal the request's host, else the worker denies.
	Host      string `json:"host"`
	Allow     bool   `json:"allow"`
	Timestamp string `json:"timestamp"`
}

// TaskCompleted is in Claude Code's schema; no writer of it was
// found (docs/PROTOCOL.md §18).
type TaskCompleted struct {
	Type        string `json:"type"`
	From        string `json:"from,omitempty"`
	TaskID      string `json:"taskId"`
	TaskSubject string `json:"taskSubject,omitempty"`
	Timestamp   string `json:"timestamp,omitempty"`
}

// TeammateTerminated lives only in a Claude lead's memory, never in a
// file; parsed so that one found anyway is recognised.
type TeammateTerminated struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type ModeSetRequest struct {
	Type string `json:"type"`
	Mode string `json:"mode"`
	From string `json:"from"`
}

type TaskAssignment struct {
	Type        string `json:"type"`
	TaskID      string `json:"taskId"`
	Subject     string `json:"subject"`
	Description string `json:"description"`
	AssignedBy  string `json:"assignedBy"`
	Timestamp   string `json:"timestamp"`
}

// Protocol is a parsed protocol message: its type, the raw JSON object and,
// for the types paneteam acts on, the typed value (nil for pass-through
// types such as sandbox_permission_request and for unknown types).
type Protocol struct {
	Type  string
	Raw   json.RawMessage
	Value any
}

// Parse reads a message text as a protocol message. Like Claude Code's
// receivers it treats anything that is not a JSON object with a string
// "type" as plain text (ok=false).
func Parse(text string) (p Protocol, ok bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return Protocol{}, false
	}
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal([]byte(t), &head); err != nil || head.Type == nil || *head.Type == "" {
		return Protocol{}, false
	}
	p = Protocol{Type: *head.Type, Raw: json.RawMessage(t)}
	var v any
	switch p.Type {
	case TypeIdle:
		v = &IdleNotification{}
	case TypeShutdownRequest:
		v = &ShutdownRequest{}
	case TypeShutdownApproved:
		v = &ShutdownApproved{}
	case TypeShutdownRejected:
		v = &ShutdownRejected{}
	case TypePlanApprovalRequest:
		v = &PlanApprovalRequest{}
	case TypePlanApprovalResponse:
		v = &PlanApprovalResponse{}
	case TypePermissionRequest:
		v = &PermissionRequest{}
	case TypePermissionResponse:
		v = &PermissionResponse{}
	case TypeModeSetRequest:
		v = &ModeSetRequest{}
	case TypeTaskAssignment:
		v = &TaskAssignment{}
	case TypeSandboxPermissionReq:
		v = &SandboxPermissionRequest{}
	case TypeSandboxPermissionResp:
		v = &SandboxPermissionResponse{}
	case TypeTaskCompleted:
		v = &TaskCompleted{}
	case TypeTeammateTerminated:
		v = &TeammateTerminated{}
	default:
		return p, true
	}
	// A known type whose fields have the wrong JSON types is still a
	// protocol message; it just has no typed value.
	dec := json.NewDecoder(strings.NewReader(t))
	if strictTypes[p.Type] {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err == nil {
		p.Value = v
	}
	return p, true
}

// strictTypes are parsed strictly, as Claude Code does: a member
// it does not know makes the frame plain text (docs/PROTOCOL.md §8).
// task_assignment is strict there too, but paneteam keeps reading it
// leniently, as before, since it only acts on its own fields.
var strictTypes = map[string]bool{TypeTaskCompleted: true, TypeTeammateTerminated: true}

// Text serialises a protocol message for a message's text field, as
// Claude Code does (JSON.stringify without indentation).
func Text(v any) (string, error) {
	b, err := jsonx.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode protocol message: %w", err)
	}
	return string(b), nil
}
