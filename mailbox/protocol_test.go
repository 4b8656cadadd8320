package mailbox

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestParseKnowsEveryProtocolType(t *testing.T) {
	cases := map[string]any{
		TypeIdle:                  &IdleNotification{},
		TypeShutdownRequest:       &ShutdownRequest{},
		TypeShutdownApproved:      &ShutdownApproved{},
		TypeShutdownRejected:      &ShutdownRejected{},
		TypePlanApprovalRequest:   &PlanApprovalRequest{},
		TypePlanApprovalResponse:  &PlanApprovalResponse{},
		TypePermissionRequest:     &PermissionRequest{},
		TypePermissionResponse:    &PermissionResponse{},
		TypeModeSetRequest:        &ModeSetRequest{},
		TypeTaskAssignment:        &TaskAssignment{},
		TypeSandboxPermissionReq:  &SandboxPermissionRequest{},
		TypeSandboxPermissionResp: &SandboxPermissionResponse{},
		TypeTaskCompleted:         &TaskCompleted{},
		TypeTeammateTerminated:    &TeammateTerminated{},
	}
	for typ, want := range cases {
		p, ok := Parse(`{"type":"` + typ + `"}`)
		if !ok || p.Type != typ {
			t.Fatalf("%s not parsed", typ)
		}
		if p.Value == nil {
			t.Fatalf("%s has no typed value", typ)
		}
		if gotT, wantT := typeName(p.Value), typeName(want); gotT != wantT {
			t.Fatalf("%s parsed as %s, want %s", typ, gotT, wantT)
		}
	}
	for _, typ := range []string{TypeTeamPermissionUpdate, "from_the_future"} {
		p, ok := Parse(`{"type":"` + typ + `","x":1}`)
		if !ok || p.Value != nil || string(p.Raw) != `{"type":"`+typ+`","x":1}` {
			t.Fatalf("%s must pass through untouched: %+v %v", typ, p, ok)
		}
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

func TestPlainTextIsNotProtocol(t *testing.T) {
	for _, s := range []string{"hello", "{not json", `{"no":"type"}`, `["type"]`, `{"type":3}`, `{"type":""}`, ""} {
		if _, ok := Parse(s); ok {
			t.Fatalf("%q taken for a protocol message", s)
		}
	}
}

func TestProtocolTextFieldOrder(t *testing.T) {
	s, err := Text(ShutdownRequest{Type: TypeShutdownRequest, RequestID: "shutdown-1@bob", From: "team-lead", Reason: "done", Timestamp: "2026-02-18T18:39:39.925Z"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"shutdown_request","requestId":"shutdown-1@bob","from":"team-lead","reason":"done","timestamp":"2026-02-18T18:39:39.925Z"}`
	if s != want {
		t.Fatalf("got  %s\nwant %s", s, want)
	}
	p, ok := Parse(s)
	if !ok || p.Value.(*ShutdownRequest).RequestID != "shutdown-1@bob" {
		t.Fatal("round trip failed")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"type":"idle_notification","from":"a"}`, "hello", `{"type":1}`, `{"type":"shutdown_request","requestId":5}`, "{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := Parse(s)
		if !ok {
			return
		}
		if p.Type == "" {
			t.Fatalf("protocol message with no type from %q", s)
		}
		if !json.Valid(p.Raw) {
			t.Fatalf("raw is not JSON: %q", p.Raw)
		}
	})
}
