package claudetest

import (
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
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

// An older release (2.1.88, a Node bundle) runs in the same harness, for
// tests that compare versions. It also sends a side request first (a
// claude-haiku model, no tools) that must not take the scripted reply.
func TestOlderReleaseRunsInTheHarness(t *testing.T) {
	testutil.RequireTool(t, "node")
	api := NewAPI(t)
	s := Start(t, Options{API: api, Bin: testutil.ClaudeReleaseBin(t, "2.1.88")})
	api.On("run the old marker", Calls(Tool("Bash", map[string]any{"command": "echo old-$((6*7))", "description": "print a marker"})))
	req := s.Submit(t, 90*time.Second, "run the old marker")
	if ua := req.Header.Get("User-Agent"); !strings.Contains(ua, "claude-cli/2.1.88") {
		t.Errorf("User-Agent = %q, want claude-cli/2.1.88", ua)
	}
	id := req.Reply.Blocks[0].ID
	next := api.WaitRequest(t, 60*time.Second, req.Seq, "with the Bash result", func(r *Request) bool {
		_, ok := r.ToolResult(id)
		return r.MainLoop && ok
	})
	if out, _ := next.ToolResult(id); !strings.Contains(out, "old-42") {
		t.Errorf("Bash result Claude 2.1.88 sent back = %q, want old-42", out)
	}
}
