package interop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/claudetest"
)

// TestApprovalRealClaudePlan: a real Claude Code teammate spawned
// by paneteam with --permission-mode plan submits its plan for approval
// (ExitPlanMode writes plan_approval_request to the lead, docs/PROTOCOL.md
// §9) and waits. Observed: ExitPlanMode is a deferred tool (ToolSearch
// first) and takes no plan: it reads the plan file whose path it names
// ("No plan file found at <config>/plans/<slug>.md") until the model
// writes it. Rejected with feedback, the teammate stays in plan mode (its
// next ExitPlanMode asks again) and the model reads "[Plan Rejected]
// <feedback>"; approved with --mode acceptEdits, it reads "[Plan
// Approved]" and then writes a project file without asking. The answers
// carry planDigest and are signed: the teammate is keyed.
func TestApprovalRealClaudePlan(t *testing.T) {
	lt := newLedTeam(t, "plans")
	const plan1 = "# Plan\n\n1. Write after-plan.txt\n"
	const plan2 = "# Plan, revised\n\n1. Write after-plan.txt\n2. Run the test target\n"
	const feedback = "split it: run the test target as well"
	after := filepath.Join(lt.s.Cwd, "after-plan.txt")

	// The fake model's side, one step per turn: load ExitPlanMode, try it
	// (learning the plan file's path), write the plan, submit it; after a
	// rejection, revise and submit again; after the approval, edit a file.
	noPlanFile := regexp.MustCompile(`No plan file found at (\S+\.md)\.`)
	var mu sync.Mutex
	var planPath, step string
	call := func(next, name string, in map[string]any) (claudetest.Reply, bool) {
		step = next
		return claudetest.Calls(claudetest.Tool(name, in)), true
	}
	lt.api.Script(func(r *claudetest.Request) (claudetest.Reply, bool) {
		mu.Lock()
		defer mu.Unlock()
		tail := r.TailText()
		switch {
		case strings.Contains(tail, "You are paula"):
			return call("load", "ToolSearch", map[string]any{"query": "select:ExitPlanMode", "max_results": 5})
		case step == "load" && strings.Contains(tail, "Tool loaded."):
			return call("probe", "ExitPlanMode", map[string]any{})
		case step == "probe" && noPlanFile.MatchString(tail):
			planPath = noPlanFile.FindStringSubmatch(tail)[1]
			return call("wrote", "Write", map[string]any{"file_path": planPath, "content": plan1})
		case step == "wrote":
			return call("submitted", "ExitPlanMode", map[string]any{})
		case strings.Contains(tail, "[Plan Rejected]"):
			return call("wrote", "Write", map[string]any{"file_path": planPath, "content": plan2})
		case strings.Contains(tail, "[Plan Approved]"):
			return call("edited", "Write", map[string]any{"file_path": after, "content": "done\n"})
		}
		return claudetest.Reply{}, false
	})
	lt.spawnClaude(t, "paula", "plan", "You are paula: plan the change, then make it.")

	var firstID string
	t.Run("rejected with feedback, it stays in plan mode", func(t *testing.T) {
		req := lt.waitRequest(t, "paula", "plan", func(r pendingRequest) bool { return r.PlanContent == plan1 })
		firstID = req.ID
		// Observed: plan_approval_request {type, from, timestamp,
		// planFilePath, planContent, requestId} with the id
		// plan_approval-<ms>@<name>@<team> (§8).
		if !regexp.MustCompile(`^plan_approval-[0-9]+@paula@` + regexp.QuoteMeta(lt.name) + `$`).MatchString(req.ID) {
			t.Errorf("plan request id %q, want plan_approval-<ms>@paula@%s", req.ID, lt.name)
		}
		var frame struct {
			PlanFilePath string `json:"planFilePath"`
		}
		json.Unmarshal(req.Frame, &frame)
		mu.Lock()
		if frame.PlanFilePath != planPath {
			t.Errorf("planFilePath %q, want the file the model wrote, %q", frame.PlanFilePath, planPath)
		}
		mu.Unlock()
		seq := lt.api.LastSeq()
		lt.ok(t, "deny", "--team", lt.name, "--feedback", feedback, req.ID)
		got := lt.api.WaitMessages(t, wait, seq, "[Plan Rejected]")
		if !strings.Contains(got.TailText(), "[Plan Rejected] "+feedback) {
			t.Errorf("the model was told:\n%s\nwant [Plan Rejected] %s", got.TailText(), feedback)
		}
		// Still in plan mode: submitting again asks the lead again.
		lt.waitRequest(t, "paula", "plan", func(r pendingRequest) bool { return r.PlanContent == plan2 && r.ID != firstID })
		if _, err := os.Stat(after); err == nil {
			t.Errorf("after-plan.txt exists before any plan was approved")
		}
	})

	t.Run("approved with --mode acceptEdits, it leaves plan mode and edits without asking", func(t *testing.T) {
		req := lt.waitRequest(t, "paula", "plan", func(r pendingRequest) bool { return r.PlanContent == plan2 && r.ID != firstID })
		seq := lt.api.LastSeq()
		out := lt.ok(t, "approve", "--team", lt.name, "--mode", "acceptEdits", req.ID)
		t.Cleanup(func() {
			if t.Failed() {
				b, _ := os.ReadFile(filepath.Join(lt.s.ConfigDir, "teams", lt.name, "inboxes", "paula.json"))
				a, _ := os.ReadFile(filepath.Join(lt.s.ConfigDir, "teams", lt.name, "inboxes", "paula.json.archive"))
				t.Logf("approve said %q; paula's inbox then:\n%s\nits archive:\n%s", out, b, a)
			}
		})
		got := lt.api.WaitMessages(t, wait, seq, "[Plan Approved]")
		if !strings.Contains(got.TailText(), "[Plan Approved]") {
			t.Errorf("the model was told:\n%s", got.TailText())
		}
		lt.s.Wait(t, wait, "paula to write after-plan.txt", func() bool {
			_, err := os.Stat(after)
			return err == nil
		})
		for _, r := range lt.requests(t) {
			if r.From == "paula" {
				t.Errorf("paula asked after the approval (acceptEdits should need no permission to write): %s %s", r.ID, r.Subject)
			}
		}
	})
}
