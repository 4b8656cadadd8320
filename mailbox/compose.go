package mailbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/provenance"
)

// Draft holds what a person gives to compose a protocol message; Compose
// checks it against the message type and fills in the rest (timestamps,
// request ids) the way Claude Code does.
type Draft struct {
	Type     string
	From, To string
	Now      time.Time

	RequestID string // answered request; shutdown_request: generated when empty
	Reason    string
	Feedback  string
	Mode      string // mode_set_request; plan_approval_response: permissionMode
	// Approve answers plan_approval_response and permission_response.
	Approve *bool
	// Input is permission_response's updated_input (the tool input to run).
	Input json.RawMessage
	// Request is the frame answered (a permission_request or a
	// plan_approval_request, as read): with it the answer is bound to the
	// request as Claude Code 2.1.330 checks (tool_use_id, approved_request
	// with the input digest; planDigest). Without it the answer is unbound,
	// which 2.1.330 accepts only from a keyless teammate's point of view.
	Request json.RawMessage

	IdleReason, TaskID, CompletedStatus string
	Summary                             string // idle_notification's own summary
	Subject, Description                string
	PaneID, BackendType                 string // shutdown_approved: the sender's pane
}

// Composable lists the types Compose builds.
var Composable = []string{TypeShutdownRequest, TypeShutdownApproved, TypeShutdownRejected,
	TypePlanApprovalResponse, TypePermissionResponse, TypeModeSetRequest, TypeIdle, TypeTaskAssignment}

// RequestID is a new request id in the form Claude Code uses,
// "<kind>-<epoch ms>@<recipient>".
func RequestID(kind, recipient string, now time.Time) string {
	return kind + "-" + strconv.FormatInt(now.UnixMilli(), 10) + "@" + recipient
}

// Compose returns the protocol message d describes and, for a request, its
// id. Errors name the missing or wrong field.
func Compose(d Draft) (v any, requestID string, err error) {
	ts := Timestamp(d.Now)
	needID := func() error {
		if d.RequestID == "" {
			return fmt.Errorf("%s answers a request: give its request id", d.Type)
		}
		return nil
	}
	switch d.Type {
	case TypeShutdownRequest:
		id := d.RequestID
		if id == "" {
			id = RequestID("shutdown", d.To, d.Now)
		}
		return ShutdownRequest{Type: d.Type, RequestID: id, From: d.From, Reason: d.Reason, Timestamp: ts}, id, nil
	case TypeShutdownApproved:
		return ShutdownApproved{Type: d.Type, RequestID: d.RequestID, From: d.From, Timestamp: ts,
			PaneID: d.PaneID, BackendType: d.BackendType}, "", needID()
	case TypeShutdownRejected:
		if d.Reason == "" {
			return nil, "", errors.New("shutdown_rejected needs a reason")
		}
		return ShutdownRejected{Type: d.Type, RequestID: d.RequestID, From: d.From, Reason: d.Reason, Timestamp: ts}, "", needID()
	case TypePlanApprovalResponse:
		if d.Approve == nil {
			return nil, "", errors.New("plan_approval_response needs a decision: approve or reject")
		}
		if d.Mode != "" && !*d.Approve {
			return nil, "", errors.New("a permission mode goes with an approved plan only")
		}
		if err := checkMode(d.Mode, true); err != nil {
			return nil, "", err
		}
		r := PlanApprovalResponse{Type: d.Type, RequestID: d.RequestID, Approved: *d.Approve, Feedback: d.Feedback,
			Timestamp: ts, PermissionMode: d.Mode}
		if len(d.Request) > 0 && *d.Approve {
			var req PlanApprovalRequest
			if err := json.Unmarshal(d.Request, &req); err != nil || req.Type != TypePlanApprovalRequest {
				return nil, "", fmt.Errorf("the request answered is not a plan_approval_request (%v)", err)
			}
			r.PlanDigest = provenance.PlanDigest(req.PlanContent)
		}
		return r, "", needID()
	case TypePermissionResponse:
		return composePermission(d, needID)
	case TypeModeSetRequest:
		if err := checkMode(d.Mode, false); err != nil {
			return nil, "", err
		}
		return ModeSetRequest{Type: d.Type, Mode: d.Mode, From: d.From}, "", nil
	case TypeIdle:
		if err := oneOf("idle reason", d.IdleReason, IdleAvailable, IdleInterrupted, IdleFailed); err != nil {
			return nil, "", err
		}
		if err := oneOf("completed status", d.CompletedStatus, "", "resolved", "blocked", "failed"); err != nil {
			return nil, "", err
		}
		return IdleNotification{Type: d.Type, From: d.From, Timestamp: ts, IdleReason: d.IdleReason, Summary: d.Summary,
			CompletedTaskID: d.TaskID, CompletedStatus: d.CompletedStatus, FailureReason: d.Reason}, "", nil
	case TypeTaskAssignment:
		if d.TaskID == "" || d.Subject == "" {
			return nil, "", errors.New("task_assignment needs the task id and its subject")
		}
		return TaskAssignment{Type: d.Type, TaskID: d.TaskID, Subject: d.Subject, Description: d.Description,
			AssignedBy: d.From, Timestamp: ts}, "", nil
	}
	return nil, "", fmt.Errorf("unknown message type %q: use one of %s", d.Type, strings.Join(Composable, ", "))
}

func composePermission(d Draft, needID func() error) (any, string, error) {
	if d.Approve == nil {
		return nil, "", errors.New("permission_response needs a decision: allow or deny")
	}
	if len(d.Request) > 0 {
		r, err := AnswerPermission(d.Request, *d.Approve, d.Reason, nil)
		if err != nil {
			return nil, "", err
		}
		if d.RequestID != "" && d.RequestID != r.RequestID {
			return nil, "", fmt.Errorf("request id %s is not the id of the request answered (%s)", d.RequestID, r.RequestID)
		}
		if len(d.Input) > 0 && r.Response != nil {
			if !json.Valid(d.Input) {
				return nil, "", errors.New("the tool input to run is not JSON")
			}
			r.Response.UpdatedInput = d.Input
		}
		return r, "", nil
	}
	r := PermissionResponse{Type: d.Type, RequestID: d.RequestID}
	if !*d.Approve {
		r.Subtype, r.Error = "error", d.Reason
		if r.Error == "" {
			r.Error = "denied by " + d.From
		}
		return r, "", needID()
	}
	if len(d.Input) == 0 || !json.Valid(d.Input) {
		return nil, "", errors.New("allowing a tool call needs its input as JSON (the input of the permission_request)")
	}
	r.Subtype = "success"
	r.Response = &PermissionDecision{UpdatedInput: d.Input, PermissionUpdates: json.RawMessage("[]")}
	return r, "", needID()
}

func checkMode(mode string, optional bool) error {
	if mode == "" && optional {
		return nil
	}
	return oneOf("permission mode", mode, PermissionModes...)
}

func oneOf(what, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	var named []string
	for _, a := range allowed {
		if a != "" {
			named = append(named, a)
		}
	}
	if v == "" {
		return fmt.Errorf("no %s given: use one of %s", what, strings.Join(named, ", "))
	}
	return fmt.Errorf("%s %q is not one of %s", what, v, strings.Join(named, ", "))
}
