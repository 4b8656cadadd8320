package mailbox

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/jsonx"
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
)

// Idle reasons and completion statuses of idle_notification.
const (
	IdleAvailable   = "available"
	IdleInterrupted = "interrupted"
	IdleFailed      = "failed"
)

// Permission modes a lead may set.
var PermissionModes = []string{"default", "acceptEdits", "bypassPermissions", "plan", "delegate", "dontAsk"}

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
}

type PermissionResponse struct {
	Type      string              `json:"type"`
	RequestID string              `json:"request_id"`
	Subtype   string              `json:"subtype"`
	Response  *PermissionDecision `json:"response,omitempty"`
	Error     string              `json:"error,omitempty"`
}

type PermissionDecision struct {
	UpdatedInput      json.RawMessage `json:"updated_input"`
	PermissionUpdates json.RawMessage `json:"permission_updates"`
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
	default:
		return p, true
	}
	// A known type whose fields have the wrong JSON types is still a
	// protocol message; it just has no typed value.
	if err := json.Unmarshal([]byte(t), v); err == nil {
		p.Value = v
	}
	return p, true
}

// Text serialises a protocol message for a message's text field, as
// Claude Code does (JSON.stringify without indentation).
func Text(v any) (string, error) {
	b, err := jsonx.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode protocol message: %w", err)
	}
	return string(b), nil
}
