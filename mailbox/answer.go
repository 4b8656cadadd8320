package mailbox

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"time"

	"github.com/paneteam/paneteam/provenance"
)

// Request ids as Claude Code 2.1.330 makes them (PROTOCOL-2.1.330.md §6).

// PermissionRequestID is "perm-<ms>-<7 base36>".
func PermissionRequestID(now time.Time) string {
	return "perm-" + strconv.FormatInt(now.UnixMilli(), 10) + "-" + base36(7)
}

// SandboxRequestID is "sandbox-<ms>-<7 base36>".
func SandboxRequestID(now time.Time) string {
	return "sandbox-" + strconv.FormatInt(now.UnixMilli(), 10) + "-" + base36(7)
}

// PlanRequestID is "plan_approval-<ms>@<name>@<team>".
func PlanRequestID(now time.Time, name, team string) string {
	return RequestID("plan_approval", name, now) + "@" + team
}

func base36(n int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	for i := range b {
		x, _ := rand.Int(rand.Reader, big.NewInt(36))
		b[i] = digits[x.Int64()]
	}
	return string(b)
}

// The checks Claude Code 2.1.330 makes before it shows a frame: a failing
// request id shows as "[invalid id]", a failing timestamp as "[invalid
// timestamp]" (PROTOCOL-2.1.330.md §6).
var (
	permIDPattern      = regexp.MustCompile(`^perm-[0-9]{1,20}-[0-9a-z]{1,12}$`)
	shutdownIDPattern  = regexp.MustCompile(`^(?:shutdown|plan_approval)-[0-9]{1,20}@[^@\n]{1,300}(?:@[^@\n]{1,300})?$`)
	timestampPattern   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$`)
	shutdownAckPattern = regexp.MustCompile(`^shutdown-[0-9]{1,20}@[\w.-]{1,64}$`)
)

// ValidPermissionID reports whether id passes Claude Code's display check
// for permission request ids.
func ValidPermissionID(id string) bool { return permIDPattern.MatchString(id) }

// ValidShutdownOrPlanID reports whether id passes Claude Code's display
// check for shutdown and plan request ids.
func ValidShutdownOrPlanID(id string) bool { return shutdownIDPattern.MatchString(id) }

// ShutdownGetsInstructions reports whether a shutdown_request with this
// id gets Claude Code's approval instructions appended for its model
// (PROTOCOL-2.1.330.md §8): ids paneteam makes for plain member names do.
func ShutdownGetsInstructions(id string) bool { return shutdownAckPattern.MatchString(id) }

// ValidTimestamp reports whether ts passes Claude Code's display check.
func ValidTimestamp(ts string) bool { return timestampPattern.MatchString(ts) }

// DefaultDenial is the error a denial carries when no feedback is given,
// as Claude Code's lead writes it.
const DefaultDenial = "Permission denied"

// AnswerPermission answers a permission_request (its frame as read) the
// way Claude Code 2.1.330's lead does (PROTOCOL-2.1.330.md §7): bound to
// the request by its tool_use_id and approved_request{tool_use_id,
// tool_name, input_digest}, the digest computed from the request's own
// tool name and input. Allowing runs the request's own input
// (updated_input) with permissionUpdates (nil: none); denying carries
// feedback (default "Permission denied").
func AnswerPermission(request json.RawMessage, allow bool, feedback string, permissionUpdates json.RawMessage) (PermissionResponse, error) {
	var req PermissionRequest
	if err := json.Unmarshal(request, &req); err != nil {
		return PermissionResponse{}, fmt.Errorf("read the permission request: %w", err)
	}
	if req.Type != TypePermissionRequest {
		return PermissionResponse{}, fmt.Errorf("not a permission request but %q", req.Type)
	}
	if req.RequestID == "" {
		return PermissionResponse{}, errors.New("the permission request has no request_id")
	}
	digest, err := provenance.RequestDigest(request)
	if err != nil {
		return PermissionResponse{}, err
	}
	r := PermissionResponse{Type: TypePermissionResponse, RequestID: req.RequestID, ToolUseID: req.ToolUseID,
		ApprovedRequest: &ApprovedRequest{ToolUseID: req.ToolUseID, ToolName: req.ToolName, InputDigest: digest}}
	if !allow {
		r.Subtype, r.Error = PermissionError, feedback
		if r.Error == "" {
			r.Error = DefaultDenial
		}
		return r, nil
	}
	if len(permissionUpdates) == 0 {
		permissionUpdates = json.RawMessage("[]")
	}
	r.Subtype = PermissionSuccess
	r.Response = &PermissionDecision{UpdatedInput: req.Input, PermissionUpdates: permissionUpdates}
	return r, nil
}

// AnswerPlan answers a plan_approval_request as Claude Code 2.1.330's lead
// does: an approval carries the plan's digest and the mode to leave plan
// mode for (mode "" is "default"; "plan" is read as "default", as a lead
// in plan mode passes it); a rejection only its feedback.
func AnswerPlan(req PlanApprovalRequest, approve bool, feedback, mode string, now time.Time) (PlanApprovalResponse, error) {
	if req.RequestID == "" {
		return PlanApprovalResponse{}, errors.New("the plan approval request has no requestId")
	}
	r := PlanApprovalResponse{Type: TypePlanApprovalResponse, RequestID: req.RequestID, Approved: approve,
		Feedback: feedback, Timestamp: Timestamp(now)}
	if !approve {
		if mode != "" {
			return PlanApprovalResponse{}, errors.New("a permission mode goes with an approved plan only")
		}
		return r, nil
	}
	switch mode {
	case "", "plan":
		mode = "default"
	}
	if err := checkMode(mode, false); err != nil {
		return PlanApprovalResponse{}, err
	}
	r.PermissionMode, r.PlanDigest = mode, provenance.PlanDigest(req.PlanContent)
	return r, nil
}

// AnswerSandbox answers a sandbox_permission_request, echoing its host
// (the worker denies an answer naming another host).
func AnswerSandbox(req SandboxPermissionRequest, allow bool, now time.Time) SandboxPermissionResponse {
	return SandboxPermissionResponse{Type: TypeSandboxPermissionResp, RequestID: req.RequestID,
		Host: req.HostPattern.Host, Allow: allow, Timestamp: Timestamp(now)}
}
