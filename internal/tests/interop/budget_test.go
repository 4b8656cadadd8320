package interop

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// budgetMember is a member's budget in 'paneteam status --json'.
type budgetMember struct {
	Name   string `json:"name"`
	Budget *struct {
		USD      float64  `json:"usd"`
		SpentUSD *float64 `json:"spentUSD"`
		State    string   `json:"state"`
		Why      string   `json:"why"`
	} `json:"budget"`
}

// tenCentReplies scripts a model whose every reply reports 100,000 input
// tokens: $0.10 at claude-haiku-4-5's $1 per million. The first two
// replies run a tool, so one prompt makes three replies; the third comes
// late enough for a budget's watch to see the second alone.
func tenCentReplies(api *claudetest.API, ok func(*claudetest.Request) bool) *int {
	var mu sync.Mutex
	n := 0
	api.Script(func(r *claudetest.Request) (claudetest.Reply, bool) {
		if !ok(r) {
			return claudetest.Reply{}, false
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k == 3 {
			// The watch (which looks every second) sees $0.20 first.
			time.Sleep(2500 * time.Millisecond)
		}
		rep := claudetest.Text("All done.")
		if k <= 2 {
			rep = claudetest.Calls(claudetest.Tool("Bash", map[string]any{"command": "true", "description": "check"})).WithText("Let me check.")
		}
		return rep.WithUsage(claudetest.Usage{Input: 100000}), true
	})
	return &n
}

// leadInbox is the text of every message in the lead's inbox of team.
func leadInbox(t *testing.T, root, team string) string {
	b, _ := os.ReadFile(filepath.Join(root, "teams", team, "inboxes", "team-lead.json"))
	var msgs []struct {
		From, Text, Summary string
	}
	json.Unmarshal(b, &msgs)
	var out []string
	for _, m := range msgs {
		out = append(out, m.From+": ["+m.Summary+"] "+m.Text)
	}
	return strings.Join(out, "\n")
}

// TestClaudeTeammateStoppedOverBudget: in a team paneteam leads, a real
// Claude Code teammate given 'spawn-pane --claude --budget 0.25' whose
// replies cost $0.10 each: the lead is warned at the second ($0.20, 80%),
// the third ($0.30) stops it (a signed shutdown_request, then the end of
// its process), and status says it stopped over budget, at $0.30.
func TestClaudeTeammateStoppedOverBudget(t *testing.T) {
	lt := newLedTeam(t, "thrift")
	tenCentReplies(lt.api, func(*claudetest.Request) bool { return true })
	endLedMember(t, lt, "bob")
	grace := []string{"PANETEAM_BUDGET_GRACE=1s"}
	if out, errOut, code := lt.run(t, grace, "spawn-pane", "--team", lt.name, "--name", "bob", "--claude", "--permission-mode", "bypassPermissions",
		"--prompt", "Check the folder twice, then stop.", "--model", "claude-haiku-4-5", "--budget", "0.25", "--", lt.s.Bin); code != 0 {
		t.Fatalf("spawn-pane --budget: exit %d\n%s%s", code, out, errOut)
	}
	var bob budgetMember
	lt.s.Wait(t, wait, "status --json to say bob stopped over budget", func() bool {
		var teams []struct {
			Members []budgetMember `json:"members"`
		}
		json.Unmarshal([]byte(lt.ok(t, "status", "--team", lt.name, "--json")), &teams)
		for _, m := range teams[0].Members {
			if m.Name == "bob" {
				bob = m
			}
		}
		return bob.Budget != nil && bob.Budget.State == "stopped" && strings.Contains(bob.Budget.Why, "ended")
	})
	if b := bob.Budget; b.USD != 0.25 || b.SpentUSD == nil || math.Abs(*b.SpentUSD-0.30) > 1e-9 ||
		!strings.Contains(b.Why, "over its budget of $0.25") || !strings.Contains(b.Why, "shutdown_request") {
		t.Errorf("bob's budget %+v (spent %v), want stopped at $0.30 of $0.25, asked by a shutdown_request", *b, *b.SpentUSD)
	}
	inbox := leadInbox(t, lt.s.ConfigDir, lt.name)
	if !strings.Contains(inbox, "bob: [budget warning] bob has spent $0.20 of its budget of $0.25 (80%)") ||
		!strings.Contains(inbox, "bob: [stopped over budget]") {
		t.Errorf("the lead's inbox lacks the warning at $0.20 and the stop:\n%s", inbox)
	}
	out := lt.ok(t, "status", "--team", lt.name)
	if !strings.Contains(out, "budget bob: $0.30 of $0.25 stopped: over its budget of $0.25") {
		t.Errorf("status does not say bob stopped over budget:\n%s", out)
	}
	lt.s.Wait(t, wait, "bob's claude to end", func() bool {
		return !strings.Contains(lt.ok(t, "status", "--team", lt.name), "bob  ") ||
			strings.Contains(lt.ok(t, "status", "--team", lt.name, "--json"), `"pane": "dead"`) || paneGone(t, lt, "bob")
	})
}

// paneGone says whether name's pane no longer runs a program.
func paneGone(t *testing.T, lt *ledTeam, name string) bool {
	pane := lt.pane(name)
	if pane == "" {
		return true
	}
	out, err := lt.s.Tmux.Run(t.Context(), "display-message", "-p", "-t", pane, "#{pane_dead}")
	return err != nil || strings.TrimSpace(out) == "1"
}

// A plain program cannot be held to a budget: spawn-pane refuses, naming
// why, and nothing is started.
func TestBudgetRefusedForAPlainProgram(t *testing.T) {
	lt := newLedTeam(t, "plain")
	out, errOut, code := lt.run(t, nil, "spawn-pane", "--team", lt.name, "--name", "sh", "--budget", "1", "--", "sleep", "60")
	if code == 0 || !strings.Contains(errOut, "--budget: paneteam cannot see what sleep spends") {
		t.Fatalf("spawn-pane --budget of sleep: exit %d, want a refusal naming why\n%s%s", code, out, errOut)
	}
	if lt.pane("sh") != "" {
		t.Error("the refused teammate was added to the team")
	}
}

// TestClaudeLedTeammateStoppedOverBudget: under 'paneteam claude --budget
// 0.25', the teammate Claude's lead starts (through paneteam's router,
// which stays its parent) is stopped after the reply that crosses $0.25;
// the lead's inbox holds the warning and the stop, in the teammate's
// name; its pane ends, which Claude's lead sees; status says why.
func TestClaudeLedTeammateStoppedOverBudget(t *testing.T) {
	l := startShimLeadFlags(t, "", true, nil, nil, nil, []string{"--budget", "0.25"}, "--dangerously-skip-permissions", "--model", "claude-haiku-4-5")
	lead := mustConfig(t, l.Session).LeadSessionID
	dora := func(r *claudetest.Request) bool { return r.SessionID() != lead }
	tenCentReplies(l.api, dora)
	l.api.On("start teammate dora",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "helper dora", "prompt": "You are dora; check twice.", "name": "dora"})),
		claudetest.Text("Started dora."))
	l.Submit(t, wait, "start teammate dora")
	env := []string{"PANETEAM_STATE_DIR=" + l.state}
	var bob budgetMember
	status := func() string { out, _, _ := ptWith(t, l.Session, env, "status", "--json"); return out }
	testutil.Eventually(t, wait, "status --json to say dora stopped over budget", func() bool {
		var teams []struct {
			Members []budgetMember `json:"members"`
		}
		if json.Unmarshal([]byte(status()), &teams) != nil || len(teams) != 1 {
			return false
		}
		for _, m := range teams[0].Members {
			if m.Name == "dora" {
				bob = m
			}
		}
		return bob.Budget != nil && bob.Budget.State == "stopped" && strings.Contains(bob.Budget.Why, "ended")
	})
	if b := bob.Budget; b.USD != 0.25 || b.SpentUSD == nil || math.Abs(*b.SpentUSD-0.30) > 1e-9 || !strings.Contains(b.Why, "over its budget of $0.25") {
		t.Errorf("dora's budget %+v (spent %v), want stopped at $0.30 of $0.25", *b, *b.SpentUSD)
	}
	// Claude's lead takes what it read out of its inbox: what it was told
	// is in its model's requests, or still in the inbox.
	cfg := mustConfig(t, l.Session)
	told := func() string {
		seen := leadInbox(t, l.ConfigDir, cfg.Name)
		for _, r := range l.api.MainLoop() {
			if r.SessionID() == lead {
				seen += "\n" + r.MessagesText()
			}
		}
		return seen
	}
	testutil.Eventually(t, wait, "the lead to be told of dora's warning at 80% and its stop", func() bool {
		seen := told()
		return strings.Contains(seen, "dora has spent $0.20 of its budget of $0.25 (80%)") && strings.Contains(seen, "dora was stopped: it spent $0.30")
	})
	testutil.Eventually(t, wait, "dora's pane to end", func() bool {
		for _, p := range listShimPanes(t, l.server(true)) {
			if p.agent == "dora" {
				return false
			}
		}
		return true
	})
	if out, _, _ := ptWith(t, l.Session, env, "status"); !strings.Contains(out, "budget dora: $0.30 of $0.25 stopped") {
		t.Errorf("status does not say dora stopped over budget:\n%s", out)
	}
}
