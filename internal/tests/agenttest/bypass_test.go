package agenttest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestOpenCodeBypassNeverAsks: OpenCode has no flag for its approvals,
// only its config and OPENCODE_PERMISSION: a teammate started with
// bypassPermissions (a Claude lead's --dangerously-skip-permissions) runs
// the shell command its project says to ask about, with no dialog.
func TestOpenCodeBypassNeverAsks(t *testing.T) {
	bin := agenttest.Install(t, agenttest.OpenCode)
	var target string
	model := agenttest.NewModel(t, func(r *agenttest.Request) []agenttest.Output {
		if !r.OffersTool("send_message") {
			return agenttest.Text("Teammate work")
		}
		last := r.Last()
		switch {
		case last.CallID == "call_touch" || last.ToolName == "bash":
			return agenttest.Text("Touched it.")
		case strings.Contains(last.UserText, "You are coder"):
			out := agenttest.CallTool("", "bash", map[string]any{"command": "touch " + target, "description": "make the file"})
			out[0].Call.ID = "call_touch"
			return out
		}
		return agenttest.Text("ok")
	})
	w := newWorld(t, agenttest.OpenCode, bin, model)
	target = filepath.Join(w.work, "BYPASSED")
	if err := os.WriteFile(filepath.Join(w.work, "opencode.json"), []byte(`{"permission": {"bash": "ask"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	w.paneteam("spawn-pane", "--team", "review", "--name", "coder", "--cwd", w.work,
		"--agent", "opencode", "--permission-mode", "bypassPermissions", "--prompt", "Touch BYPASSED.")
	testutil.Eventually(t, 120*time.Second, "the command to run without asking", func() bool {
		_, err := os.Stat(target)
		return err == nil
	})
	if text := w.paneteam("status", "--team", "review"); strings.Contains(text, "NEEDS YOU") {
		t.Errorf("coder asked although it runs with bypassPermissions:\n%s", text)
	}
}
