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
)

// An agent CLI teammate whose scripted model reports known counts, in
// replies mixing text and a tool call, shows in 'paneteam status --json'
// with exactly their sums, in paneteam's meaning (input without the
// cached part), and a cost at the person's own price for the model
// (prices.json in paneteam's config folder): the shipped table has none
// for "fake-model".
func TestCodexTeammateCost(t *testing.T) {
	costScenario(t, agenttest.Codex, func(tool string) []agenttest.Output { return agenttest.CallTool("mcp__team", tool, map[string]any{}) })
}

func TestGeminiTeammateCost(t *testing.T) {
	costScenario(t, agenttest.Gemini, func(tool string) []agenttest.Output {
		return agenttest.CallTool("", "mcp_team_"+tool, map[string]any{})
	})
}

func TestOpenCodeTeammateCost(t *testing.T) {
	costScenario(t, agenttest.OpenCode, func(tool string) []agenttest.Output { return agenttest.CallTool("", "team_"+tool, map[string]any{}) })
}

type memberUsage struct {
	InputTokens      *int64   `json:"inputTokens"`
	OutputTokens     *int64   `json:"outputTokens"`
	CacheReadTokens  *int64   `json:"cacheReadTokens"`
	CacheWriteTokens *int64   `json:"cacheWriteTokens"`
	CostUSD          *float64 `json:"costUSD"`
	Models           []string `json:"models"`
	Unpriced         []string `json:"unpriced"`
	Unknown          string   `json:"unknown"`
}

func costScenario(t *testing.T, cli agenttest.CLI, call func(tool string) []agenttest.Output) {
	bin := agenttest.Install(t, cli)
	var mu sync.Mutex
	answered := map[int]bool{} // main requests (the team's tools offered), by seq
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
		answered[r.Seq] = true
		mu.Unlock()
		if l := r.Last(); l.CallID != "" || l.ToolName != "" {
			return agenttest.Text("There are no tasks.")
		}
		return append(agenttest.Text("Let me look at the tasks."), call("list_tasks")...)
	})
	// Side requests report nothing, so the sums are the main replies'
	// whatever each CLI does with its own side calls.
	model.ReportUsage(func(r *agenttest.Request) agenttest.Usage {
		if !r.OffersTool("list_tasks") {
			return agenttest.Usage{}
		}
		return agenttest.Usage{Input: 5000 + r.Seq, Cached: 1000 + r.Seq, Output: 300 + r.Seq}
	})
	w := newWorld(t, cli, bin, model)
	// paneteam's own config and state folders, the test's: the person's
	// prices, and the launch record and cursors status reads.
	w.tmuxEnv = append(w.tmuxEnv, "XDG_CONFIG_HOME="+filepath.Join(w.home, ".config"), "PANETEAM_STATE_DIR="+t.TempDir())
	prices := filepath.Join(w.home, ".config", "paneteam", "prices.json")
	os.MkdirAll(filepath.Dir(prices), 0o700)
	os.WriteFile(prices, []byte(`{"models": {"fake-model": {"input_mtok": 2, "output_mtok": 8, "cache_read_mtok": 0.5}}}`), 0o600)

	w.paneteam("spawn-pane", "--team", "review", "--name", "coder", "--cwd", w.work, "--agent", cli.Name, "--prompt", "Count the tasks.")
	want := func() (in, cached, out int64, n int) {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range model.Requests() {
			if answered[r.Seq] {
				in, cached, out, n = in+int64(r.Usage.Input-r.Usage.Cached), cached+int64(r.Usage.Cached), out+int64(r.Usage.Output), n+1
			}
		}
		return
	}
	var got memberUsage
	read := func() {
		var teams []struct {
			Members []struct {
				Name  string       `json:"name"`
				Usage *memberUsage `json:"usage"`
			} `json:"members"`
		}
		out := w.paneteam("status", "--team", "review", "--json")
		if err := json.Unmarshal([]byte(out), &teams); err != nil || len(teams) != 1 {
			t.Fatalf("status --json: %v\n%s", err, out)
		}
		for _, m := range teams[0].Members {
			if m.Name == "coder" && m.Usage != nil {
				got = *m.Usage
			}
		}
	}
	same := func() bool {
		in, cached, out, n := want()
		return n >= 2 && got.InputTokens != nil && *got.InputTokens == in && *got.CacheReadTokens == cached &&
			*got.OutputTokens == out && *got.CacheWriteTokens == 0
	}
	defer func() {
		if t.Failed() {
			in, cached, out, n := want()
			t.Logf("coder's usage %+v; the %d replies: %d in, %d cached, %d out", got, n, in, cached, out)
			run := filepath.Join(w.team.Dir(), "agents", "coder")
			filepath.Walk(run, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() && strings.HasSuffix(p, "l") {
					b, _ := os.ReadFile(p)
					t.Logf("%s:\n%.3000s", p, b)
				}
				return nil
			})
		}
	}()
	testutil.Eventually(t, 180*time.Second, "status --json to show coder's replies' tokens", func() bool {
		read()
		return same()
	})
	time.Sleep(time.Second) // a reply still on its way would show now
	read()
	in, cached, out, n := want()
	if !same() {
		t.Fatalf("coder's usage %+v; want the sums of the %d replies: %d in, %d cached, %d out", got, n, in, cached, out)
	}
	usd := (2*float64(in) + 0.5*float64(cached) + 8*float64(out)) / 1e6
	if got.CostUSD == nil || math.Abs(*got.CostUSD-usd) > 1e-9 || !strings.Contains(strings.Join(got.Models, ","), "fake-model") {
		t.Errorf("coder's cost %v on %v, want $%v at your price for fake-model", got.CostUSD, got.Models, usd)
	}
}
