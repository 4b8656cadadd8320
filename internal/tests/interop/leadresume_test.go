package interop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestClaudeLeadResumed: a person's 'paneteam claude' lead (the real
// Claude Code) has a Claude teammate in a pane, and tells it a code word.
// Then everything dies without a shutdown: the terminal closes (the tmux
// server is killed: Claude gets SIGHUP and runs its exit) or the machine
// crashes (every process SIGKILLed first). The person starts
// 'paneteam claude -- --resume <the lead's session>'.
//
// What Claude Code itself does, checked here so a release that
// changes it is noticed (docs/ROUTER.md, "A resumed Claude lead"): the
// resumed lead keeps its session id, leads a team with no teammate in it,
// and its SendMessage to the old teammate's name is refused, nothing
// resumed in process. What paneteam adds: when the lead's model starts a
// teammate of the same name again, the router resumes that teammate's
// own session, in a pane paneteam marks, so its model gets its earlier
// conversation (the code word) with the new prompt.
func TestClaudeLeadResumed(t *testing.T) {
	for _, crash := range []bool{false, true} {
		name := "terminal closed"
		if crash {
			name = "crash"
		}
		t.Run(name, func(t *testing.T) { testClaudeLeadResumed(t, crash) })
	}
}

func testClaudeLeadResumed(t *testing.T, crash bool) {
	l := startShimLeadWith(t, "", true, nil, nil, nil)
	first := mustConfig(t, l.Session)
	l.spawn(t, "helper")
	const word = "the code word is PELICAN"
	after := l.api.LastSeq()
	l.api.On("tell helper the word",
		claudetest.Calls(claudetest.Tool("ToolSearch", map[string]any{"query": "select:SendMessage", "max_results": 5})),
		claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "helper", "message": "helper, " + word, "summary": "word"})),
		claudetest.Text("Told."))
	l.Submit(t, wait, "tell helper the word")
	l.api.WaitRequest(t, wait, after, "helper's model to get the word", func(r *claudetest.Request) bool {
		return r.SessionID() != first.LeadSessionID && strings.Contains(r.TailText(), word)
	})
	before, err := launches.Open(l.state).Read(l.ConfigDir, first.Name, "helper")
	if err != nil || before == nil || before.SessionID == "" {
		t.Fatalf("helper's launch record: %+v, %v", before, err)
	}

	// What a crash can take back is what Claude had written: the word is
	// in helper's transcript first.
	testutil.Eventually(t, wait, "helper's transcript to hold the word", func() bool {
		m, _ := filepath.Glob(filepath.Join(l.ConfigDir, "projects", "*", before.SessionID+".jsonl"))
		for _, p := range m {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), word) {
				return true
			}
		}
		return false
	})
	if crash {
		for _, pid := range append(agentProcs("helper@"+first.Name), l.PID) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	l.Tmux.Run(t.Context(), "kill-server")
	testutil.Eventually(t, 30*time.Second, "the lead to end", func() bool { return !l.Alive() })
	testutil.Eventually(t, 30*time.Second, "helper to end", func() bool { return len(agentProcs("helper@"+first.Name)) == 0 })
	logTeams(t, l.ConfigDir, "after the lead died")

	// The person is told, before Claude starts, who does not come back.
	out, errOut, code := pt(t, l.Session, "claude", "--dry-run", "--", "--resume", first.LeadSessionID)
	if code != 0 || !strings.Contains(out, "note: session "+first.LeadSessionID+" had teammates (helper) that Claude Code does not bring back") {
		t.Errorf("paneteam claude --dry-run -- --resume: exit %d, %s%s; want a note naming helper", code, out, errOut)
	}

	after = l.api.LastSeq()
	r := l.Relaunch(t, "claude", "--", "--dangerously-skip-permissions", "--resume", first.LeadSessionID)
	l.Session = r

	// Claude's own: the old teammate is not reachable, and is not resumed
	// in process.
	l.api.On("ask helper for the word",
		claudetest.Calls(claudetest.Tool("ToolSearch", map[string]any{"query": "select:SendMessage", "max_results": 5})),
		claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "helper", "message": "helper, what was the code word?", "summary": "word?"})),
		claudetest.Text("Asked."))
	r.Submit(t, wait, "ask helper for the word")
	res := l.api.WaitMessages(t, wait, after, "is reachable")
	if res.SessionID() != first.LeadSessionID {
		t.Errorf("the resumed lead's requests carry session %s, want its own %s", res.SessionID(), first.LeadSessionID)
	}
	if slices.ContainsFunc(l.api.Requests()[after:], (*claudetest.Request).InProcessTeammate) {
		t.Errorf("Claude resumed helper in its own process")
	}
	t.Logf("the resumed lead's SendMessage to helper: %.300s", res.TailText())

	// paneteam's: started again by name, helper goes on in a pane.
	const ask = "You are back. What was the code word?"
	after = l.api.LastSeq()
	l.api.On("bring helper back",
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "helper again", "prompt": ask, "name": "helper"})),
		claudetest.Text("Started helper again."))
	r.Submit(t, wait, "bring helper back")
	got := l.api.WaitRequest(t, wait, after, "helper's model to get the new prompt", func(q *claudetest.Request) bool {
		return q.SessionID() != first.LeadSessionID && strings.Contains(q.MessagesText(), ask)
	})
	// Claude moves its team to the resumed session's name (docs/PROTOCOL.md
	// §3, Rekey) in its own time: the team is the one it leads now.
	var team string
	r.Wait(t, wait, "the resumed lead's team to name helper", func() bool {
		r.Team = ledBy(l.ConfigDir, r.PID)
		c, err := r.Config()
		return err == nil && strings.Contains(string(c.Raw), `"helper@`)
	})
	team = r.Team
	logTeams(t, l.ConfigDir, "after helper came back")
	rec, _ := launches.Open(l.state).Read(l.ConfigDir, team, "helper")
	js, _ := json.Marshal(rec)
	t.Logf("helper's launch now: %s", js)
	// It runs with the resumed lead's flags, its new signing key among
	// them, and --resume in place of a new session.
	if rec == nil || rec.SessionID != before.SessionID || !slices.Contains(rec.Args, "--resume") ||
		flagOf(rec.Args, "--lead-verify-key") == flagOf(before.Args, "--lead-verify-key") {
		t.Errorf("helper's launch: %s; want --resume %s and the resumed lead's key", js, before.SessionID)
	}
	if got.InProcessTeammate() {
		t.Errorf("helper came back in Claude's process, not in a pane")
	}
	if got.SessionID() != before.SessionID || !strings.Contains(got.MessagesText(), word) {
		t.Errorf("helper came back as session %s with %q in its conversation: %v; want its earlier session %s, its conversation with it",
			got.SessionID(), word, strings.Contains(got.MessagesText(), word), before.SessionID)
	}
	l.teammatePanes(t, r.Tmux, "helper")
}

// ledBy is the team under root whose leadProcess is pid ("" for none).
func ledBy(root string, pid int) string {
	ents, _ := os.ReadDir(filepath.Join(root, "teams"))
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(root, "teams", e.Name(), "config.json"))
		var c claudetest.TeamConfig
		if err == nil && json.Unmarshal(b, &c) == nil && c.LeadProcess != nil && c.LeadProcess.PID == pid {
			return e.Name()
		}
	}
	return ""
}

// logTeams logs every team's config.json under root: the evidence
// docs/ROUTER.md cites.
func logTeams(t *testing.T, root, when string) {
	ents, _ := os.ReadDir(filepath.Join(root, "teams"))
	if len(ents) == 0 {
		t.Logf("%s: no team", when)
	}
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(root, "teams", e.Name(), "config.json"))
		t.Logf("%s: teams/%s/config.json:\n%s", when, e.Name(), b)
	}
}

// flagOf is the value after flag in args ("" when absent).
func flagOf(args []string, flag string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}
