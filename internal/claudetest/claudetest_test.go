package claudetest

import (
	"strings"
	"testing"
	"time"
)

func TestRealClaudeRunsScriptedTools(t *testing.T) {
	api := NewAPI(t)
	s := Start(t, Options{API: api, Team: "harness"})
	cfg := s.WaitTeam(t, 90*time.Second)
	t.Logf("team config after %s:\n%s", time.Since(s.Started).Round(time.Millisecond), cfg.Raw)

	api.On("run the marker command", Calls(Tool("Bash", map[string]any{"command": "echo harness-$((6*7))", "description": "print a marker"})))
	req := s.Submit(t, 90*time.Second, "run the marker command")
	if !req.MainLoop {
		t.Fatalf("the prompt reached the model in a side request")
	}
	id := req.Reply.Blocks[0].ID
	next := api.WaitRequest(t, 60*time.Second, req.Seq, "with the Bash result", func(r *Request) bool {
		_, ok := r.ToolResult(id)
		return r.MainLoop && ok
	})
	out, _ := next.ToolResult(id)
	if !strings.Contains(out, "harness-42") {
		t.Errorf("Bash result Claude sent back = %q, want harness-42 (the command ran)", out)
	}
	s.WaitScreen(t, 30*time.Second, "Done.")
	for _, r := range api.Requests() {
		t.Logf("#%d main=%v model=%s tools=%v path=%s ua=%s", r.Seq, r.MainLoop, r.Model, r.ToolNames(), r.Path, r.Header.Get("User-Agent"))
	}
	t.Logf("refused: %v", api.Refused())
}
