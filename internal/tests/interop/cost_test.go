package interop

import (
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/paneteam/paneteam/internal/core/prices"
	"github.com/paneteam/paneteam/internal/core/usage"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// statusUsage is a member's usage in 'paneteam status --json'.
type statusUsage struct {
	InputTokens      *int64   `json:"inputTokens"`
	OutputTokens     *int64   `json:"outputTokens"`
	CacheReadTokens  *int64   `json:"cacheReadTokens"`
	CacheWriteTokens *int64   `json:"cacheWriteTokens"`
	CostUSD          *float64 `json:"costUSD"`
	Models           []string `json:"models"`
	Unknown          string   `json:"unknown"`
}

func (u *statusUsage) tokens() usage.Tokens {
	if u == nil || u.InputTokens == nil {
		return usage.Tokens{Input: -1}
	}
	return usage.Tokens{Input: *u.InputTokens, Output: *u.OutputTokens, CacheRead: *u.CacheReadTokens, CacheWrite: *u.CacheWriteTokens}
}

type statusTeam struct {
	Members []struct {
		Name  string       `json:"name"`
		Usage *statusUsage `json:"usage"`
	} `json:"members"`
	Usage *statusUsage `json:"usage"`
}

// TestClaudeTeammateCost: a real Claude Code teammate whose scripted
// model reports known counts, in replies mixing text and a tool call,
// shows in 'paneteam status --json' with exactly their sums (each reply
// once, though Claude writes a line per content block), and a cost that
// is the price table's.
func TestClaudeTeammateCost(t *testing.T) {
	lt := newLedTeam(t, "spend")
	const model = "claude-haiku-4-5"
	var mu sync.Mutex
	var sent []claudetest.Usage
	lt.api.Script(func(r *claudetest.Request) (claudetest.Reply, bool) {
		mu.Lock()
		defer mu.Unlock()
		n := len(sent) + 1
		u := claudetest.Usage{Input: 1000*n + 1, Output: 100*n + 2, CacheRead: 10000*n + 3, CacheWrite: 500*n + 4}
		sent = append(sent, u)
		rep := claudetest.Text("All done.")
		if n == 1 {
			rep = claudetest.Calls(claudetest.Tool("Bash", map[string]any{"command": "true", "description": "check"}),
				claudetest.Tool("Bash", map[string]any{"command": "true", "description": "check again"})).WithText("Let me check.")
		}
		return rep.WithUsage(u), true
	})
	lt.spawnClaude(t, "bob", "bypassPermissions", "Check the folder, then stop.", "--model", model)

	want := func() usage.Tokens {
		mu.Lock()
		defer mu.Unlock()
		var w usage.Tokens
		for _, u := range sent {
			w = w.Add(usage.Tokens{Input: int64(u.Input), Output: int64(u.Output), CacheRead: int64(u.CacheRead), CacheWrite: int64(u.CacheWrite)})
		}
		return w
	}
	var got statusTeam
	read := func() {
		out := lt.ok(t, "status", "--team", lt.name, "--json")
		var teams []statusTeam
		if err := json.Unmarshal([]byte(out), &teams); err != nil || len(teams) != 1 {
			t.Fatalf("status --json: %v\n%s", err, out)
		}
		got = teams[0]
	}
	bob := func() *statusUsage {
		for _, m := range got.Members {
			if m.Name == "bob" {
				return m.Usage
			}
		}
		return nil
	}
	testutil.Eventually(t, wait, "status --json to show bob's two replies' tokens", func() bool {
		read()
		mu.Lock()
		n := len(sent)
		mu.Unlock()
		return n >= 2 && bob().tokens() == want()
	})
	// Idle now: no request came since; the sums stay exact.
	read()
	w := want()
	if b := bob(); b.tokens() != w {
		t.Fatalf("bob's usage %+v, want the sums of the replies sent %+v", b.tokens(), w)
	}
	if got.Usage.tokens() != w {
		t.Errorf("the team's usage %+v, want bob's %+v (the lead is paneteam's: no model)", got.Usage.tokens(), w)
	}
	table, err := prices.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	var models []string
	for _, r := range lt.api.MainLoop() {
		models = append(models, r.Model)
	}
	mu.Unlock()
	spend := usage.Spend{Models: map[string]usage.Model{}}
	for _, m := range models {
		spend.Models[m] = usage.Model{}
	}
	spend.Models[models[0]] = usage.Model{Tokens: w}
	usd, unpriced := table.Cost(spend)
	b := bob()
	if len(unpriced) > 0 || b.CostUSD == nil || math.Abs(*b.CostUSD-usd) > 1e-9 {
		t.Errorf("bob's cost %v for %v, want $%v at the table's price of %s", b.CostUSD, b.Models, usd, strings.Join(models, ","))
	}
	if !strings.Contains(strings.Join(b.Models, ","), model) {
		t.Errorf("bob's models %v, want %s", b.Models, model)
	}
}

// TestClaudeLedTeamCost: under 'paneteam claude', the lead's own replies
// and those of the teammate its Agent tool started (through paneteam's
// router, which recorded its session) sum exactly in status --json, each
// from its own transcript.
func TestClaudeLedTeamCost(t *testing.T) {
	l := startShimLead(t, "", true)
	lead := mustConfig(t, l.Session).LeadSessionID
	var mu sync.Mutex
	n := 0
	l.api.Script(func(r *claudetest.Request) (claudetest.Reply, bool) {
		mu.Lock()
		defer mu.Unlock()
		n++
		u := claudetest.Usage{Input: 700 + n, Output: 70 + n, CacheRead: 7000 + n, CacheWrite: 77 + n}
		switch {
		case r.SessionID() == lead && strings.Contains(r.TailText(), "start teammate dora"):
			return claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "helper dora", "prompt": "You are dora; wait for work.", "name": "dora"})).
				WithText("Starting dora.").WithUsage(u), true
		case r.SessionID() == lead:
			return claudetest.Text("Started dora.").WithUsage(u), true
		}
		return claudetest.Text("Waiting for work.").WithUsage(u), true
	})
	after := l.api.LastSeq()
	l.Submit(t, wait, "start teammate dora")
	l.api.WaitRequest(t, wait, after, "dora's model to get its prompt", func(r *claudetest.Request) bool {
		return r.SessionID() != lead && strings.Contains(r.TailText(), "You are dora")
	})
	sums := func() map[string]usage.Tokens {
		out := map[string]usage.Tokens{}
		for _, r := range l.api.MainLoop() {
			u := claudetest.Usage{Input: 100, Output: 10} // the fake model's own, before the script
			if r.Reply.Usage != nil {
				u = *r.Reply.Usage
			}
			who := "dora"
			if r.SessionID() == lead {
				who = "team-lead"
			}
			out[who] = out[who].Add(usage.Tokens{Input: int64(u.Input), Output: int64(u.Output), CacheRead: int64(u.CacheRead), CacheWrite: int64(u.CacheWrite)})
		}
		return out
	}
	var got map[string]usage.Tokens
	testutil.Eventually(t, wait, "status --json to show the lead's and dora's replies", func() bool {
		out, _, code := ptWith(t, l.Session, []string{"PANETEAM_STATE_DIR=" + l.state}, "status", "--json")
		var teams []statusTeam
		if code != 0 || json.Unmarshal([]byte(out), &teams) != nil || len(teams) != 1 {
			return false
		}
		got = map[string]usage.Tokens{}
		for _, m := range teams[0].Members {
			got[m.Name] = m.Usage.tokens()
		}
		want := sums()
		return got["team-lead"] == want["team-lead"] && got["dora"] == want["dora"] && want["dora"].Output > 0
	})
	want := sums()
	if got["team-lead"] != want["team-lead"] || got["dora"] != want["dora"] {
		t.Fatalf("status --json: %+v, want the replies' sums %+v", got, want)
	}
}
