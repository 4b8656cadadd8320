package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpawnClaudePlanModeAsksTheLead: --permission-mode plan starts the
// teammate as Claude Code's lead starts a plan-mode teammate,
// --plan-mode-required --permission-mode plan (docs/PROTOCOL.md §14),
// and records planModeRequired. Observed with Claude Code 2.1.330: given
// --permission-mode plan alone, the teammate approves its own plan and
// nobody is asked (internal/tests/interop TestApprovalRealClaudePlan is the
// real-binary check).
func TestSpawnClaudePlanModeAsksTheLead(t *testing.T) {
	s := spInside(t)
	s.vars = append(s.vars, "PANETEAM_STATE_DIR="+t.TempDir())
	inbox := filepath.Join(s.root, "teams", "crew", "inboxes", "paula.json")
	bin, argvFile, _ := fakeClaude(t, t.TempDir(), inbox)
	s.spawnClaude("paula", bin, "--permission-mode", "plan", "--prompt", "Plan the change")
	args := spWaitLines(t, argvFile, 1)
	joined := " " + strings.Join(args, " ") + " "
	if !strings.Contains(joined, " --plan-mode-required --permission-mode plan ") {
		t.Errorf("teammate started with %q, want --plan-mode-required --permission-mode plan", args)
	}
	var cfg struct {
		Members []struct {
			Name             string `json:"name"`
			PlanModeRequired *bool  `json:"planModeRequired"`
		} `json:"members"`
	}
	b, err := os.ReadFile(filepath.Join(s.root, "teams", "crew", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &cfg)
	for _, m := range cfg.Members {
		if m.Name == "paula" && (m.PlanModeRequired == nil || !*m.PlanModeRequired) {
			t.Errorf("paula's member row has planModeRequired %v, want true", m.PlanModeRequired)
		}
	}
}
