package agenttest_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// An agent CLI teammate given 'spawn-pane --agent CLI --budget 0.25',
// whose replies cost $0.10 each (100,000 input tokens at the person's $1
// per million for fake-model): the lead is warned at the second, the
// third stops it (the CLI's own quit typed, then its process ended), the
// lead is told it ended and why, and status says it stopped over budget
// at $0.30. The CLIs run side by side: OpenCode is slow to start.
func TestAgentTeammateStoppedOverBudget(t *testing.T) {
	for _, c := range []struct {
		cli  agenttest.CLI
		call func(tool string) []agenttest.Output // a call of a team tool, named as the CLI names it
	}{
		{agenttest.Codex, func(tool string) []agenttest.Output { return agenttest.CallTool("mcp__team", tool, map[string]any{}) }},
		{agenttest.Gemini, func(tool string) []agenttest.Output {
			return agenttest.CallTool("", "mcp_team_"+tool, map[string]any{})
		}},
		{agenttest.OpenCode, func(tool string) []agenttest.Output { return agenttest.CallTool("", "team_"+tool, map[string]any{}) }},
	} {
		t.Run(c.cli.Name, func(t *testing.T) {
			t.Parallel()
			budgetScenario(t, c.cli, c.call)
		})
	}
}

func budgetScenario(t *testing.T, cli agenttest.CLI, call func(tool string) []agenttest.Output) {
	bin := agenttest.Install(t, cli)
	var mu sync.Mutex
	main := 0
	model := agenttest.NewModel(t, func(r *agenttest.Request) []agenttest.Output {
		if !r.OffersTool("list_tasks") {
			switch { // the CLIs' side requests; Gemini CLI's want JSON
			case r.Contains("complexity_score"):
				return agenttest.Text(`{"complexity_reasoning": "a routine step", "complexity_score": 10}`)
			case r.Contains("next_speaker"):
				return agenttest.Text(`{"reasoning": "the turn is done", "next_speaker": "user"}`)
			}
			return agenttest.Text("Counting")
		}
		mu.Lock()
		main++
		n := main
		mu.Unlock()
		if n == 3 {
			// The watch (which looks every second) sees $0.20 first.
			time.Sleep(2500 * time.Millisecond)
		}
		if n <= 2 {
			return append(agenttest.Text("Let me look at the tasks."), call("list_tasks")...)
		}
		return agenttest.Text("There are no tasks.")
	})
	// Side requests cost nothing, so the spending is the main replies'
	// whatever each CLI asks on the side.
	model.ReportUsage(func(r *agenttest.Request) agenttest.Usage {
		if !r.OffersTool("list_tasks") {
			return agenttest.Usage{}
		}
		return agenttest.Usage{Input: 100000}
	})
	w := newWorld(t, cli, bin, model)
	w.tmuxEnv = append(w.tmuxEnv, "XDG_CONFIG_HOME="+filepath.Join(w.home, ".config"), "PANETEAM_STATE_DIR="+t.TempDir(), "PANETEAM_BUDGET_GRACE=1s")
	prices := filepath.Join(w.home, ".config", "paneteam", "prices.json")
	os.MkdirAll(filepath.Dir(prices), 0o700)
	os.WriteFile(prices, []byte(`{"models": {"fake-model": {"input_mtok": 1, "output_mtok": 1}}}`), 0o600)

	w.paneteam("spawn-pane", "--team", "review", "--name", "coder", "--cwd", w.work, "--agent", cli.Name,
		"--prompt", "Count the tasks twice.", "--budget", "0.25")
	type member struct {
		Name   string `json:"name"`
		Budget *struct {
			USD      float64  `json:"usd"`
			SpentUSD *float64 `json:"spentUSD"`
			State    string   `json:"state"`
			Why      string   `json:"why"`
		} `json:"budget"`
	}
	var coder member
	testutil.Eventually(t, 180*time.Second, "status --json to say coder stopped over budget", func() bool {
		var teams []struct {
			Members []member `json:"members"`
		}
		json.Unmarshal([]byte(w.paneteam("status", "--team", "review", "--json")), &teams)
		for _, m := range teams[0].Members {
			if m.Name == "coder" {
				coder = m
			}
		}
		return coder.Budget != nil && coder.Budget.State == "stopped" && strings.Contains(coder.Budget.Why, "asked to quit,") // and how it ended
	})
	if b := coder.Budget; b.SpentUSD == nil || math.Abs(*b.SpentUSD-0.30) > 1e-9 || !strings.Contains(b.Why, "over its budget of $0.25") ||
		!strings.Contains(b.Why, "asked to quit, then ended") {
		t.Errorf("coder's budget: $%v spent of $%v, %s: %s; want stopped at $0.30 of $0.25, ended by its own quit", deref(b.SpentUSD), b.USD, b.State, b.Why)
	}
	var warned, told bool
	var inbox []string
	for _, m := range w.inbox(team.LeadName) {
		inbox = append(inbox, m.From+": ["+m.Summary+"] "+m.Text)
		warned = warned || m.From == "coder" && m.Summary == "budget warning" && strings.Contains(m.Text, "coder has spent $0.20 of its budget of $0.25 (80%)")
		told = told || m.From == "coder" && m.Summary == "stopped over budget"
	}
	idled := false
	for _, n := range w.idles("coder") {
		idled = idled || n.IdleReason == mailbox.IdleFailed && strings.Contains(n.FailureReason, "over its budget")
	}
	if !warned || !told || !idled {
		t.Errorf("the lead's inbox: warned at 80%% %v, told of the stop %v, idle (failed) with why %v:\n%s", warned, told, idled, strings.Join(inbox, "\n"))
	}
	testutil.Eventually(t, 30*time.Second, "coder's "+cli.Name+" to end", func() bool { return len(leftover(w.root, "coder")) == 0 })
	if out := w.paneteam("status", "--team", "review"); !strings.Contains(out, "budget coder: $0.30 of $0.25 stopped: over its budget") {
		t.Errorf("status does not say coder stopped over budget:\n%s", out)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
