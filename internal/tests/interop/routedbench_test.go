package interop

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestRoutedSpawnLatency times, for teammates Claude Code's lead spawns
// through 'paneteam claude' inside tmux, the span from the moment the
// fake model's reply carrying the Agent call was sent to the lead to the
// teammate's first request to its model: a Claude teammate (no
// subagent_type: the router runs the same Claude) beside a Codex
// teammate (subagent_type "codex": the router runs Codex as a teammate).
// One lead a round spawns one of each per step, in alternating order, so
// that what else loads the machine weighs on both alike. Timed, so run
// on demand (PANETEAM_BENCH=1) and recorded in bench/RESULTS.md;
// PANETEAM_ROUTEDBENCH_ROUNDS and PANETEAM_ROUTEDBENCH_TEAMMATES change
// the defaults (3 rounds of 3 pairs).
func TestRoutedSpawnLatency(t *testing.T) {
	if os.Getenv("PANETEAM_BENCH") != "1" {
		t.Skip("SKIPPED: a timing run; set PANETEAM_BENCH=1 to run it")
	}
	rounds, per := envInt(t, "PANETEAM_ROUTEDBENCH_ROUNDS", 3), envInt(t, "PANETEAM_ROUTEDBENCH_TEAMMATES", 3)
	codexBin := agenttest.Install(t, agenttest.Codex)
	testutil.MCPBinary(t)
	claudetest.Binary(t)
	load := []string{loadAvg()}
	times := map[string][]time.Duration{}
	for r := 1; r <= rounds; r++ {
		t.Run(fmt.Sprintf("round%d", r), func(t *testing.T) {
			model := agenttest.NewModel(t, func(*agenttest.Request) []agenttest.Output { return agenttest.Text("Waiting.") })
			l := startShimLeadWith(t, "", true, nil, []string{codexBin}, []string{"FAKE_API_KEY=test-key"})
			agenttest.PersonConfig(t, agenttest.Codex, l.Home, model)
			seen := map[string]bool{mustConfig(t, l.Session).LeadSessionID: true}
			var agents []string
			for i := 1; i <= per; i++ {
				order := []string{"claude", "codex"}
				if (r+i)%2 == 1 {
					order = []string{"codex", "claude"}
				}
				for _, kind := range order {
					n := fmt.Sprintf("%s%d", kind, i)
					agents = append(agents, n+"@"+mustConfig(t, l.Session).Name)
					d := timeRoutedSpawn(t, l, model, seen, n, kind)
					times[kind] = append(times[kind], d)
					t.Logf("%s: %s", n, d.Round(time.Millisecond))
				}
			}
			load = append(load, loadAvg())
			l.exitLead(t, l.Tmux, true, agents...)
		})
	}
	if t.Failed() {
		return
	}
	t.Logf("RESULT %d teammates of each (%d rounds of %d), load average (1 5 15 min) at the start and after each round: %s",
		len(times["claude"]), rounds, per, strings.Join(load, "; "))
	c, x := spawnStats(times["claude"]), spawnStats(times["codex"])
	t.Logf("RESULT Agent call to the teammate's first model request: Claude p50 %s p95 %s mean %s; Codex p50 %s p95 %s mean %s; ratio p50 %.2f",
		c.p50, c.p95, c.mean, x.p50, x.p95, x.mean, float64(x.p50)/float64(c.p50))
}

// timeRoutedSpawn has the lead's model start teammate n (a Codex one for
// kind "codex") and times it to that teammate's first model request.
func timeRoutedSpawn(t *testing.T, l *shimLead, model *agenttest.Model, seen map[string]bool, n, kind string) time.Duration {
	t.Helper()
	args := map[string]any{"description": "helper " + n, "prompt": "You are " + n + "; wait for work.", "name": n}
	if kind == "codex" {
		args["subagent_type"] = "codex"
	}
	before := len(model.Requests())
	l.api.On("start teammate "+n, claudetest.Calls(claudetest.Tool("Agent", args)), claudetest.Text("Started "+n+"."))
	call := l.Submit(t, wait, "start teammate "+n)
	var first time.Time
	if kind == "codex" {
		model.Wait(wait, n+"'s first request", func(rs []*agenttest.Request) bool { return len(rs) > before })
		first = model.Requests()[before].Time
	} else {
		r := l.api.WaitRequest(t, wait, call.Seq, n+"'s first request", func(r *claudetest.Request) bool { return !seen[r.SessionID()] })
		seen[r.SessionID()] = true
		first = r.Time
	}
	sent := l.api.ReplySent(call)
	if sent.IsZero() {
		t.Fatalf("the reply carrying %s's Agent call has no time it was sent", n)
	}
	l.api.WaitMessages(t, wait, call.Seq, "Spawned successfully")
	// Let the teammate's first turn end, so that one spawn's start-up
	// does not load the next one's.
	time.Sleep(3 * time.Second)
	return first.Sub(sent)
}
