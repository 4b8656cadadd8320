package agenttest_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// An OpenCode teammate spawned with --permission-mode plan runs OpenCode's
// plan agent, as its profile maps the mode: its model may look but not
// edit the project, even when the person's own config allows every tool
// (OpenCode's plan agent alone then edits). Its model asks to write a
// file: no edit tool is offered, the file is not written, and the turn
// still ends and reaches the lead as an idle notice.
func TestOpenCodePlanModeDoesNotEdit(t *testing.T) {
	bin := agenttest.Install(t, agenttest.OpenCode)
	var mu sync.Mutex
	var result string
	var offered []string
	var target string // the file the model tries to write
	model := agenttest.NewModel(t, func(r *agenttest.Request) []agenttest.Output {
		if !r.OffersTool("team_send_message") {
			return agenttest.Text("Teammate work")
		}
		mu.Lock()
		defer mu.Unlock()
		last := r.Last()
		if last.CallID == "call_write" {
			result = last.ToolOutput
			return agenttest.Text("I did not change anything.")
		}
		if strings.Contains(last.UserText, "You are coder") {
			tools, _ := r.JSON["tools"].([]any)
			for _, tl := range tools {
				m, _ := tl.(map[string]any)
				f, _ := m["function"].(map[string]any)
				if n, _ := f["name"].(string); n != "" {
					offered = append(offered, n)
				}
			}
			out := agenttest.CallTool("", "write", map[string]any{"filePath": target, "content": "planned, not done\n"})
			out[0].Call.ID = "call_write"
			return out
		}
		return agenttest.Text("ok")
	})
	// The person's own config allows every tool (PersonConfig): plan
	// mode must hold anyway.
	w := newWorld(t, agenttest.OpenCode, bin, model)
	target = filepath.Join(w.work, "PLANNED.txt")
	w.paneteam("spawn-pane", "--team", "review", "--name", "coder", "--cwd", w.work,
		"--agent", "opencode", "--permission-mode", "plan", "--prompt", "Write PLANNED.txt.")
	testutil.Eventually(t, 120*time.Second, "coder's turn to end (its idle notice)", func() bool { return len(w.idles("coder")) > 0 })
	mu.Lock()
	defer mu.Unlock()
	t.Logf("tools offered in plan mode: %v", offered)
	t.Logf("write's result: %s", result)
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("OpenCode in plan mode wrote %s", target)
	}
	if result == "" {
		t.Fatalf("the model never got write's result")
	}
	for _, name := range offered {
		if name == "write" || name == "edit" {
			t.Errorf("plan mode offers the model the %s tool (tools: %v)", name, offered)
		}
	}
	if idle := w.idles("coder")[0]; idle.Summary != "I did not change anything." {
		t.Errorf("idle notice: %+v", idle)
	}
}
