package interop

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// routedTeammate is the scripted model of any agent CLI Claude's lead
// started as a teammate: its first turn reads its inbox (the lead's
// prompt) and reports to the lead with send_message; a notice of the
// lead's later message makes it read its inbox again. call names a team
// tool as the CLI lists it to its model.
type routedTeammate struct {
	*agenttest.Model
	call func(tool string, args any) []agenttest.Output

	mu                    sync.Mutex
	steps                 map[string]string // call id, and tool name, -> step
	prompt, sent, inboxed string
}

func newRoutedTeammate(t *testing.T, call func(tool string, args any) []agenttest.Output) *routedTeammate {
	m := &routedTeammate{call: call, steps: map[string]string{}}
	m.Model = agenttest.NewModel(t, m.answer)
	return m
}

func (m *routedTeammate) answer(r *agenttest.Request) []agenttest.Output {
	if !r.OffersTool("read_inbox") {
		// The CLIs' side requests; Gemini CLI's want JSON.
		switch {
		case r.Contains("complexity_score"):
			return agenttest.Text(`{"complexity_reasoning": "a routine step", "complexity_score": 10}`)
		case r.Contains("next_speaker"):
			return agenttest.Text(`{"reasoning": "the turn is done", "next_speaker": "user"}`)
		}
		return agenttest.Text("Teammate work")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	call := func(step, tool string, args any) []agenttest.Output {
		out := m.call(tool, args)
		out[0].Call.ID = fmt.Sprintf("call_%s_%d", step, r.Seq)
		// Gemini CLI may answer a call by its tool's name only.
		m.steps[out[0].Call.ID], m.steps[out[0].Call.Name] = step, step
		return out
	}
	last := r.Last()
	if last.CallID != "" || last.ToolName != "" {
		step, ok := m.steps[last.CallID]
		if !ok {
			step = m.steps[last.ToolName]
		}
		switch step {
		case "prompt":
			m.prompt = last.ToolOutput
			return call("report", "send_message", map[string]any{"to": "team-lead", "text": routedReport, "summary": "review done"})
		case "report":
			m.sent = last.ToolOutput
			return agenttest.Text(routedReply)
		case "read":
			m.inboxed = last.ToolOutput
			return agenttest.Text("Read the lead's message.")
		}
		return agenttest.Text("done")
	}
	switch {
	case strings.Contains(last.UserText, "new message from team-lead"):
		return call("read", "read_inbox", map[string]any{})
	case strings.Contains(last.UserText, "read_inbox"):
		return call("prompt", "read_inbox", map[string]any{})
	}
	return agenttest.Text("ok")
}

func (m *routedTeammate) get(field *string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return *field
}

// TestClaudeLeadSpawnsAgentCLIs: a person runs 'paneteam claude' in tmux
// with Gemini CLI or OpenCode installed and asks Claude's lead for one as
// a reviewer. The lead's model is offered the CLI's agent type and calls
// Agent with a name and that subagent_type: the CLI starts in a pane
// paneteam made, its model gets the lead's prompt through read_inbox,
// its send_message reaches the lead's model as the teammate's message,
// and the lead's SendMessage reaches it between turns. Then the lead's
// model asks for its shutdown: it answers shutdown_approved, Claude's
// lead takes it off the team, and its pane and every process of it end.
func TestClaudeLeadSpawnsAgentCLIs(t *testing.T) {
	for _, tc := range []struct {
		cli     agenttest.CLI
		offered string // the line the lead's model is offered
		prefix  string // how the CLI names paneteam's MCP tools to its model
		// lead is Claude's own arguments: OpenCode has no equivalent of
		// Claude's bypassPermissions, so a lead started with
		// --dangerously-skip-permissions is refused an OpenCode teammate.
		lead []string
	}{
		{agenttest.Gemini, "- gemini: Google's Gemini CLI", "mcp_team_", []string{"--dangerously-skip-permissions"}},
		{agenttest.OpenCode, "- opencode: OpenCode, run as a teammate", "team_", []string{"--permission-mode", "default"}},
	} {
		t.Run(tc.cli.Name, func(t *testing.T) {
			bin := agenttest.Install(t, tc.cli)
			testutil.MCPBinary(t)
			model := newRoutedTeammate(t, func(tool string, args any) []agenttest.Output {
				return agenttest.CallTool("", tc.prefix+tool, args)
			})
			env := append(agenttest.PersonEnv(tc.cli, model.Model), "COLORTERM=truecolor")
			l := startShimLeadArgs(t, "", true, nil, []string{bin}, env, tc.lead...)
			agenttest.PersonConfig(t, tc.cli, l.Home, model.Model)
			routedScenario(t, l, model, tc.cli.Name, tc.offered)
		})
	}
}

// routedScenario is TestClaudeLeadSpawnsAgentCLIs for one CLI (its agent
// type typ), with Claude's lead l started and model the CLI's model.
func routedScenario(t *testing.T, l *shimLead, model *routedTeammate, typ, offered string) {
	cfg := mustConfig(t, l.Session)
	const prompt = "Review parser.go for off-by-one errors and report to me."
	after := l.api.LastSeq()
	l.api.On("get a reviewer for parser.go",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": typ + " reviewer", "prompt": prompt,
			"name": "coder", "subagent_type": typ})),
		claudetest.Text("Started coder."))
	req := l.Submit(t, wait, "get a reviewer for parser.go")
	if !strings.Contains(req.MessagesText(), offered) {
		t.Errorf("Claude's lead was not offered the %s agent type; its model saw:\n%.3000s", typ, req.MessagesText())
	}
	l.api.WaitMessages(t, wait, after, "Spawned successfully")
	defer func() {
		if t.Failed() {
			c, _ := l.Config()
			for _, m := range c.Members {
				if m.Name == "coder" {
					t.Logf("coder's screen:\n%s", l.PaneScreen(m.TmuxPaneID))
				}
			}
			for _, r := range model.Requests() {
				t.Logf("%s model request %d %s: last %+.300v", typ, r.Seq, r.Path, r.Last())
			}
			b, _ := os.ReadFile(filepath.Join(l.TeamDir(), "config.json"))
			t.Logf("config.json:\n%s", b)
		}
	}()
	testutil.Eventually(t, wait, "the CLI's model to read the lead's prompt with read_inbox", func() bool { return model.get(&model.prompt) != "" })
	if got := model.get(&model.prompt); !strings.Contains(got, "off-by-one") || !strings.Contains(got, "team-lead") {
		t.Errorf("read_inbox gave %s's model %s, want the lead's prompt from team-lead", typ, got)
	}
	srv := l.server(true)
	pane := l.teammatePanes(t, srv, "coder")["coder"]
	pids := codexProcs(l.ConfigDir) // every process of coder's, whatever its CLI
	if len(pids) == 0 {
		t.Fatalf("no %s process of coder's", typ)
	}
	for _, pid := range pids {
		if !descends(pid, pane.pid) {
			t.Errorf("%s process %d does not run in coder's pane (pid %d)", typ, pid, pane.pid)
		}
	}

	// The CLI's report reaches the lead's model as coder's message.
	got := l.api.WaitRequest(t, wait, after, "of Claude's lead carrying coder's report", func(r *claudetest.Request) bool {
		return r.MainLoop && r.SessionID() == cfg.LeadSessionID && strings.Contains(r.MessagesText(), routedReport)
	})
	if tail := got.TailText(); !strings.Contains(tail, `<teammate-message teammate_id="coder"`) {
		t.Errorf("Claude's lead gave its model coder's report as:\n%s", tail)
	}

	// The lead's reply reaches the CLI between turns, through read_inbox.
	const ask = "coder, please also check the empty-input case"
	l.api.On("ask coder about empty input",
		claudetest.Calls(claudetest.Tool("ToolSearch", map[string]any{"query": "select:SendMessage", "max_results": 5})),
		claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "coder", "message": ask, "summary": "empty input"})),
		claudetest.Text("Asked."))
	l.Submit(t, wait, "ask coder about empty input")
	testutil.Eventually(t, wait, "the CLI's model to read the lead's message", func() bool { return model.get(&model.inboxed) != "" })
	if got := model.get(&model.inboxed); !strings.Contains(got, ask) {
		t.Errorf("read_inbox gave %s's model %s, want the lead's message", typ, got)
	}

	// The lead's model shuts coder down: coder approves, Claude's lead
	// takes it off the team, and its pane closes.
	after = l.api.LastSeq()
	l.api.On("shut coder down",
		claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "coder",
			"message": map[string]any{"type": "shutdown_request", "reason": "the review is done"}})),
		claudetest.Text("Asked coder to stop."))
	l.Submit(t, wait, "shut coder down")
	// coder's answer reaches the lead's model, for the request it sent.
	asked := l.api.WaitMessages(t, wait, after, "Shutdown request sent to coder")
	id := regexp.MustCompile(`shutdown-[0-9]+@coder`).FindString(asked.TailText())
	approved := l.api.WaitRequest(t, wait, after, "of Claude's lead with coder's shutdown_approved", func(r *claudetest.Request) bool {
		return r.MainLoop && r.SessionID() == cfg.LeadSessionID && strings.Contains(r.TailText(), `"type":"shutdown_approved"`)
	})
	if tail := approved.TailText(); id == "" || !strings.Contains(tail, `<teammate-message teammate_id="coder"`) || !strings.Contains(tail, `"requestId":"`+id+`"`) ||
		strings.Contains(tail, `verified="false"`) {
		t.Errorf("Claude's lead gave its model, for its shutdown request %q:\n%s", id, tail)
	}
	testutil.Eventually(t, wait, "Claude's lead to take coder off its team", func() error {
		for _, m := range mustConfig(t, l.Session).Members {
			if m.Name == "coder" {
				return fmt.Errorf("coder is still a member: %+v", m)
			}
		}
		return nil
	})
	testutil.Eventually(t, 15*time.Second, "coder's pane to close", func() error {
		for _, p := range listShimPanes(t, srv) {
			if p.id == pane.id {
				return fmt.Errorf("coder's pane %s is still open", p.id)
			}
		}
		return nil
	})
	testutil.Eventually(t, 15*time.Second, "no process of coder's left", func() error {
		if pids := codexProcs(l.ConfigDir); len(pids) > 0 {
			return fmt.Errorf("processes of coder's left: %v", pids)
		}
		if pids := agentProcs("coder@" + cfg.Name); len(pids) > 0 {
			return fmt.Errorf("coder's router left: %v", pids)
		}
		return nil
	})
	l.exitLead(t, srv, true)
}
