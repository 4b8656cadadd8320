package approval

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
	"github.com/paneteam/paneteam/mailbox"
)

// Decision is the lead's answer to one request.
type Decision struct {
	Approve bool
	// Feedback reaches the model: a denied tool call's error ("Permission
	// denied" when empty), or a plan's feedback either way. A sandbox reply
	// and an approved tool call carry none.
	Feedback string
	// Mode is the permission mode a teammate switches to after an approved
	// plan ("default" when empty).
	Mode string
	// Always adds, to an approved tool call, the "always allow" rules the
	// request itself suggests (its permission_suggestions).
	Always bool
	// Now stamps the response (time.Now when zero).
	Now time.Time
}

// PlanModes are the modes Claude Code accepts in an approved
// plan's permissionMode; any other value makes the whole frame invalid
// (§8, plan_approval_response).
var PlanModes = []string{"default", "acceptEdits", "auto", "bypassPermissions", "dontAsk", "plan"}

// DefaultDeny is Claude Code's own error text for a denial without
// feedback (§9, tool permission step 3).
const DefaultDeny = "Permission denied"

// The permission_response frame, fields in the order Claude Code writes
// them (the sandbox and plan answers are mailbox's own frames). It
// differs from mailbox.PermissionResponse in what it leaves out: an
// approval carries no updated_input, so the teammate runs its own input.

type approvedRequest struct {
	ToolUseID   string `json:"tool_use_id"`
	ToolName    string `json:"tool_name"`
	InputDigest string `json:"input_digest"`
}

type permissionSuccess struct {
	PermissionUpdates []json.RawMessage `json:"permission_updates"`
}

type permissionResponse struct {
	Type            string             `json:"type"`
	RequestID       string             `json:"request_id"`
	Subtype         string             `json:"subtype"`
	ToolUseID       string             `json:"tool_use_id,omitempty"`
	ApprovedRequest *approvedRequest   `json:"approved_request,omitempty"`
	Response        *permissionSuccess `json:"response,omitempty"`
	Error           *string            `json:"error,omitempty"`
}

// Response returns the frame (the text of the inbox entry) that answers r
// with d, or an error naming what d asks that r cannot carry.
func Response(r Request, d Decision) (string, error) {
	if d.Now.IsZero() {
		d.Now = time.Now()
	}
	var v any
	var err error
	switch r.Kind {
	case KindPermission:
		v, err = permission(r, d)
	case KindSandbox:
		v, err = sandbox(r, d)
	case KindPlan:
		v, err = plan(r, d)
	default:
		err = fmt.Errorf("unknown request kind %q", r.Kind)
	}
	if err != nil {
		return "", err
	}
	b, err := jsonx.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode the answer to %s: %w", r.ID, err)
	}
	return string(b), nil
}

// permission binds the verdict to the request: the teammate refuses a
// verdict, approval or denial, whose tool_use_id, tool name or input
// digest differ from what it asked (§9, tool permission step 4).
func permission(r Request, d Decision) (any, error) {
	if d.Mode != "" {
		return nil, decisionErr(FieldMode, "{field} goes with a plan; %s is a tool call", r.ID)
	}
	digest, err := requestDigest(r)
	if err != nil {
		return nil, fmt.Errorf("request %s: %w", r.ID, err)
	}
	resp := permissionResponse{Type: mailbox.TypePermissionResponse, RequestID: r.ID}
	// approved_request's fields are all required strings: a request
	// without tool_use_id can only get an unbound verdict, which the
	// teammate accepts (§8, §9 step 4).
	if r.ToolUseID != "" {
		resp.ToolUseID = r.ToolUseID
		resp.ApprovedRequest = &approvedRequest{ToolUseID: r.ToolUseID, ToolName: r.ToolName, InputDigest: digest}
	}
	if !d.Approve {
		if d.Always {
			return nil, decisionErr(FieldAlways, "{field} goes with an approval")
		}
		e := d.Feedback
		if e == "" {
			e = DefaultDeny
		}
		resp.Subtype, resp.Error = "error", &e
		return resp, nil
	}
	if d.Feedback != "" {
		return nil, decisionErr(FieldFeedback, "an approved tool call carries no feedback in Claude Code; drop {field} (or deny with it)")
	}
	updates := []json.RawMessage{}
	if d.Always {
		if updates, err = AlwaysRules(r); err != nil {
			return nil, err
		}
	}
	resp.Subtype, resp.Response = "success", &permissionSuccess{PermissionUpdates: updates}
	return resp, nil
}

// AlwaysRules returns the "always allow" updates the request suggests:
// its permission_suggestions entries that add allow rules for the very
// tool it asks about, kept in this project's local settings or the
// session (§9, tool permission step 5). The suggestions are the
// teammate's words, so nothing wider is taken from them: no replaceRules
// (it would drop the person's own rules), no rule for another tool, and
// nothing written to the user's settings for every project. It fails when
// no suggestion qualifies, so that --always never silently approves just
// once.
func AlwaysRules(r Request) ([]json.RawMessage, error) {
	var sugg []json.RawMessage
	if len(r.Suggestions) > 0 && string(r.Suggestions) != "null" {
		if err := json.Unmarshal(r.Suggestions, &sugg); err != nil {
			return nil, fmt.Errorf("request %s: permission_suggestions is not a list: %w", r.ID, err)
		}
	}
	var out []json.RawMessage
	for _, s := range sugg {
		var u struct {
			Type        string `json:"type"`
			Behavior    string `json:"behavior"`
			Destination string `json:"destination"`
			Rules       []struct {
				ToolName string `json:"toolName"`
			} `json:"rules"`
		}
		if json.Unmarshal(s, &u) != nil || u.Type != "addRules" || u.Behavior != "allow" || len(u.Rules) == 0 {
			continue
		}
		switch u.Destination {
		case "localSettings", "session":
		default:
			continue
		}
		own := true
		for _, rule := range u.Rules {
			own = own && rule.ToolName == r.ToolName
		}
		if own {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, decisionErr(FieldAlways, "request %s suggests no \"always allow\" rule, so {field} has nothing to add: approve without it", r.ID)
	}
	return out, nil
}

func sandbox(r Request, d Decision) (any, error) {
	switch {
	case d.Feedback != "":
		return nil, decisionErr(FieldFeedback, "a sandbox reply carries no feedback in Claude Code; drop {field}")
	case d.Mode != "":
		return nil, decisionErr(FieldMode, "{field} goes with a plan; %s asks for a network host", r.ID)
	case d.Always:
		return nil, decisionErr(FieldAlways, "{field} goes with a tool call; %s asks for a network host", r.ID)
	}
	// The teammate denies unless host equals the host it asked for (§9).
	return mailbox.SandboxPermissionResponse{Type: mailbox.TypeSandboxPermissionResp, RequestID: r.ID, Host: r.Host,
		Allow: d.Approve, Timestamp: mailbox.Timestamp(d.Now)}, nil
}

func plan(r Request, d Decision) (any, error) {
	if d.Always {
		return nil, decisionErr(FieldAlways, "{field} goes with a tool call; %s is a plan", r.ID)
	}
	resp := mailbox.PlanApprovalResponse{Type: mailbox.TypePlanApprovalResponse, RequestID: r.ID, Approved: d.Approve,
		Feedback: d.Feedback, Timestamp: mailbox.Timestamp(d.Now)}
	if !d.Approve {
		if d.Mode != "" {
			return nil, decisionErr(FieldMode, "{field} goes with an approved plan")
		}
		return resp, nil
	}
	if r.PlanConflict {
		return nil, decisionErr(FieldFeedback, "two different plans came under id %s, so an approval cannot say which one you saw: "+
			"deny it with {field} asking for the plan again", r.ID)
	}
	mode := d.Mode
	if mode == "" {
		mode = "default"
	}
	if !validMode(mode) {
		return nil, fmt.Errorf("permission mode %q is not one Claude Code accepts: use one of %s",
			mode, strings.Join(PlanModes, ", "))
	}
	resp.PermissionMode, resp.PlanDigest = mode, planDigest(r.PlanContent)
	return resp, nil
}

func validMode(m string) bool {
	for _, k := range PlanModes {
		if m == k {
			return true
		}
	}
	return false
}

// DecisionField is a part of a Decision, which each front end names as
// its own flag or argument.
type DecisionField string

const (
	FieldMode     DecisionField = "mode"
	FieldAlways   DecisionField = "always"
	FieldFeedback DecisionField = "feedback"
)

// DecisionError is a Decision with a part that does not fit its request.
type DecisionError struct {
	Field DecisionField
	text  string // "{field}" where the part is named
}

func decisionErr(f DecisionField, format string, args ...any) error {
	return &DecisionError{Field: f, text: fmt.Sprintf(format, args...)}
}

func (e *DecisionError) Error() string { return e.Words(string(e.Field)) }

// Words is the refusal with the part named as a front end names it:
// "--always" on the command line, "always" as a tool's argument.
func (e *DecisionError) Words(field string) string {
	return strings.ReplaceAll(e.text, "{field}", field)
}
