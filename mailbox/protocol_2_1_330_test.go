package mailbox

import (
	"strings"
	"testing"
	"time"
)

// Frames as Claude Code 2.1.330 writes them (docs/PROTOCOL.md §8).
func TestParseClaude2_1_330Frames(t *testing.T) {
	idle, _ := Parse(`{"type":"idle_notification","from":"alice","timestamp":"2026-01-01T00:00:00.000Z","idleReason":"available","summary":"done","result":"All 12 tests pass."}`)
	if v := idle.Value.(*IdleNotification); v.Result != "All 12 tests pass." || v.Summary != "done" {
		t.Errorf("idle: %+v", v)
	}
	perm, _ := Parse(`{"type":"permission_request","request_id":"perm-1767225600000-abc1234","agent_id":"alice","tool_name":"Bash","tool_use_id":"toolu_01","description":"Run tests","input":{"command":"npm test"},"permission_suggestions":[{"type":"addRules"}]}`)
	if v := perm.Value.(*PermissionRequest); v.ToolUseID != "toolu_01" || string(v.Input) != `{"command":"npm test"}` || string(v.PermissionSuggestions) != `[{"type":"addRules"}]` {
		t.Errorf("permission_request: %+v", v)
	}
	skill, _ := Parse(`{"type":"permission_request","request_id":"perm-1-a","agent_id":"a","tool_name":"S","tool_use_id":"t","description":"d","input":{},"permission_suggestions":[],"tool_kind":"mcp_skill","mcp_server":{"name":"srv","source":"x"},"mcp_skill":{"name":"sk","version":"1","uri":"u"}}`)
	if v := skill.Value.(*PermissionRequest); v.ToolKind != "mcp_skill" || !strings.Contains(string(v.MCPSkill), `"sk"`) {
		t.Errorf("mcp skill request: %+v", v)
	}
	resp, _ := Parse(`{"type":"permission_response","request_id":"perm-1-a","subtype":"success","tool_use_id":"t","approved_request":{"tool_use_id":"t","tool_name":"Bash","input_digest":"ab"},"response":{"updated_input":{}}}`)
	if v := resp.Value.(*PermissionResponse); v.ApprovedRequest == nil || v.ApprovedRequest.InputDigest != "ab" || v.ToolUseID != "t" {
		t.Errorf("permission_response: %+v", v)
	}
	plan, _ := Parse(`{"type":"plan_approval_response","requestId":"plan_approval-1@alice@t","approved":true,"timestamp":"2026-01-01T00:00:00.000Z","permissionMode":"acceptEdits","planDigest":"578210"}`)
	if v := plan.Value.(*PlanApprovalResponse); v.PlanDigest != "578210" || v.PermissionMode != "acceptEdits" {
		t.Errorf("plan_approval_response: %+v", v)
	}
	sb, _ := Parse(`{"type":"sandbox_permission_request","requestId":"sandbox-1-abcdefg","workerId":"alice@t","workerName":"alice","workerColor":"blue","hostPattern":{"host":"example.com"},"createdAt":1767225600000}`)
	if v := sb.Value.(*SandboxPermissionRequest); v.HostPattern.Host != "example.com" || v.CreatedAt != 1767225600000 {
		t.Errorf("sandbox request: %+v", v)
	}
	done, _ := Parse(`{"type":"task_completed","taskId":"3","from":"alice"}`)
	if v, ok := done.Value.(*TaskCompleted); !ok || v.TaskID != "3" {
		t.Errorf("task_completed: %+v", done)
	}
	// Parsed strictly: an unknown member makes it untyped, as Claude Code
	// refuses it.
	if p, ok := Parse(`{"type":"task_completed","taskId":"3","extra":1}`); !ok || p.Value != nil {
		t.Errorf("task_completed with an extra member got a value: %+v", p)
	}
	if p, _ := Parse(`{"type":"teammate_terminated","message":"bye"}`); p.Value.(*TeammateTerminated).Message != "bye" {
		t.Errorf("teammate_terminated: %+v", p)
	}
}

func TestRequestIDFormats(t *testing.T) {
	now := time.UnixMilli(1767225600000)
	if id := PermissionRequestID(now); !ValidPermissionID(id) || !strings.HasPrefix(id, "perm-1767225600000-") || len(id) != len("perm-1767225600000-")+7 {
		t.Errorf("permission id %s", id)
	}
	if id := SandboxRequestID(now); !strings.HasPrefix(id, "sandbox-1767225600000-") || len(id) != len("sandbox-1767225600000-")+7 {
		t.Errorf("sandbox id %s", id)
	}
	if id := PlanRequestID(now, "alice", "review"); id != "plan_approval-1767225600000@alice@review" || !ValidShutdownOrPlanID(id) {
		t.Errorf("plan id %s", id)
	}
	if id := RequestID("shutdown", "alice", now); !ValidShutdownOrPlanID(id) || !ShutdownGetsInstructions(id) {
		t.Errorf("shutdown id %s", id)
	}
	for _, bad := range []string{"perm-x-1", "shutdown-1@a@b@c", "shutdown-1@a\nb", "perm-1-ABC"} {
		if ValidPermissionID(bad) || ValidShutdownOrPlanID(bad) {
			t.Errorf("%q passed", bad)
		}
	}
	if !ValidTimestamp("2026-01-01T00:00:00.000Z") || !ValidTimestamp("2026-01-01T00:00:00+02:00") || ValidTimestamp("2026-01-01 00:00:00") {
		t.Error("timestamp check")
	}
}
