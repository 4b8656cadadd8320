package interop

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/panes/shim"
	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
)

// TestClaudeLeadCodexTypeWithoutName: Claude's lead, offered the codex
// agent type by 'paneteam claude', calls Agent with subagent_type
// "codex" and no name. That is a plain Claude subagent, which cannot be
// Codex: it is told it is not Codex and to say so (its system prompt is
// the stand-in's), no pane opens, no Codex and no router starts, and
// paneteam records no launch.
func TestClaudeLeadCodexTypeWithoutName(t *testing.T) {
	codexBin := agenttest.Install(t, agenttest.Codex)
	l := startShimLeadWith(t, "", true, nil, []string{codexBin}, nil)
	cfg := mustConfig(t, l.Session)

	const prompt = "Check parser.go's loop bounds."
	const standIn = "I am not OpenAI Codex CLI: ask for a teammate."
	before := listShimPanes(t, l.server(true))
	// The subagent (a Claude with the stand-in's system prompt) answers
	// as that prompt tells it to.
	l.api.Script(func(r *claudetest.Request) (claudetest.Reply, bool) {
		return claudetest.Text(standIn), strings.Contains(r.SystemText(), "You are not OpenAI Codex CLI")
	})
	after := l.api.LastSeq()
	l.api.On("ask codex about parser.go without a name",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "codex check", "prompt": prompt, "subagent_type": "codex"})),
		claudetest.Text("Asked."))
	l.Submit(t, wait, "ask codex about parser.go without a name")

	// The subagent's request to Claude's API carries the stand-in's
	// system prompt, and its answer reaches the lead's model. (Claude
	// runs it in the background: the Agent call returns at once.) Not
	// fatal: what was spawned instead is checked below.
	var sub *claudetest.Request
	deadline := time.Now().Add(30 * time.Second)
	for sub == nil && time.Now().Before(deadline) {
		for _, r := range l.api.Requests()[after:] {
			if strings.Contains(r.TailText(), prompt) && !strings.Contains(r.TailText(), "without a name") {
				sub = r
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if sub == nil {
		t.Errorf("no request of a codex-type subagent reached Claude's API")
	} else {
		if sys := sub.SystemText(); !strings.Contains(sys, "You are not OpenAI Codex CLI") || !strings.Contains(sys, "do not pretend to be OpenAI Codex CLI") {
			t.Errorf("the codex-type subagent's system prompt is not the stand-in's:\n%.3000s", sys)
		}
		l.api.WaitRequest(t, wait, sub.Seq, "of Claude's lead with the subagent's answer", func(r *claudetest.Request) bool {
			return r.SessionID() == cfg.LeadSessionID && strings.Contains(r.TailText(), standIn)
		})
	}

	// Nothing was spawned: no pane but the lead's, no member, no router,
	// no Codex, no launch record.
	if now := listShimPanes(t, l.server(true)); len(now) != len(before) {
		t.Errorf("a pane opened for the codex-type subagent: %+v, before %+v", now, before)
	}
	for _, m := range mustConfig(t, l.Session).Members {
		if m.Name != "team-lead" {
			t.Errorf("the codex-type subagent became a member: %+v", m)
		}
	}
	if pids := procsWith("--agent-type", "codex"); len(pids) > 0 {
		t.Errorf("a teammate of type codex started: processes %v", pids)
	}
	if pids := procsRunning(filepath.Dir(filepath.Dir(codexBin))); len(pids) > 0 { // Codex's node_modules
		t.Errorf("Codex started: processes %v", pids)
	}
	ents, err := os.ReadDir(launches.Folder(l.state))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(launches.Folder(l.state), e.Name()))
		t.Errorf("paneteam recorded a launch: %s", b)
	}
	for _, e := range readShimLog(t, l.log) {
		if c, err := shim.Parse(e.Argv); err == nil && (c.Cmd == "split-window" || c.Cmd == "new-window" || c.Cmd == "respawn-pane") {
			t.Errorf("Claude's lead asked paneteam's tmux for a pane: %v", e.Argv)
		}
	}
	l.exitLead(t, l.server(true), true)
}

// procsRunning lists the live processes whose command line names a file
// under dir.
func procsRunning(dir string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || isZombie(pid) {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), dir+"/") {
			pids = append(pids, pid)
		}
	}
	return pids
}
