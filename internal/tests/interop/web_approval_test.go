package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/browsertest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// webPage is paneteam web serving a ledTeam, open in a real Chromium.
type webPage struct {
	*browsertest.Browser
	out *lockedBuffer // what paneteam web printed
}

// openWeb starts 'paneteam web --team' as the person would in the lead's
// terminal (the built paneteam, which becomes paneteam-web; the lead's
// state folder, so answers are signed with its keys), opens the first
// line it prints, the URL, in a headless Chromium, and ends both when the
// test ends.
func openWeb(t *testing.T, lt *ledTeam) *webPage {
	t.Helper()
	cmd := exec.Command(testutil.Binary(t), "web", "--team", lt.name, "--listen", "127.0.0.1:0")
	cmd.Env = testutil.Env(append(append(lt.s.Env(), "PANETEAM_ROOT="+lt.s.ConfigDir, "PANETEAM_STATE_DIR="+lt.state,
		"PANETEAM_WEB_BIN="+testutil.Tool(t, "paneteam-web", "./cmd/paneteam-web")), lt.s.TmuxEnv(t)...)...)
	cmd.Dir = lt.s.Cwd
	out := &lockedBuffer{}
	cmd.Stderr = out
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start paneteam web: %v", err)
	}
	first, read := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(read)
		defer close(first)
		sc := bufio.NewScanner(stdout)
		for n := 0; sc.Scan(); n++ {
			if n == 0 {
				first <- sc.Text()
			}
			out.Write([]byte(sc.Text() + "\n")) //nolint:errcheck
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT) //nolint:errcheck // Ctrl-C, as the person ends it
		select {
		case <-read: // it printed all it had to say and closed its output
		case <-time.After(10 * time.Second):
			cmd.Process.Kill() //nolint:errcheck
			<-read
			t.Errorf("paneteam web did not end within 10s of Ctrl-C")
		}
		if err := cmd.Wait(); err != nil && !t.Failed() { // after the reads, as exec asks
			t.Errorf("paneteam web, ended with Ctrl-C: %v", err)
		}
		if t.Failed() {
			t.Logf("paneteam web printed:\n%s", out)
		}
	})
	var url string
	select {
	case url = <-first:
	case <-time.After(30 * time.Second):
		t.Fatalf("paneteam web printed no URL within 30s:\n%s", out)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "?token=") {
		t.Fatalf("the first line paneteam web printed is not the URL to open: %q\n%s", url, out)
	}
	// Started after paneteam web, so it ends before: when a test fails,
	// the page it logs is still the live one.
	b := browsertest.Start(t, browsertest.Options{})
	b.Open(t, url)
	b.WaitText(t, 20*time.Second, "live ·")
	return &webPage{Browser: b, out: out}
}

// requestCard waits until the page lists a request from name whose card
// shows text, and returns the card's selector.
func (p *webPage) requestCard(t *testing.T, name, text string) string {
	t.Helper()
	const find = `(from, text) => [...document.querySelectorAll("#requests li[data-request]")].find((li) =>
		li.querySelector(".name").textContent === from && li.textContent.includes(text))`
	p.WaitJS(t, wait, fmt.Sprintf("a request from %s showing %q", name, text), find, name, text)
	id := browsertest.Eval[string](t, p.Browser, fmt.Sprintf(`(%s)(%q, %q).dataset.request`, find, name, text))
	return fmt.Sprintf(`#requests li[data-request=%q]`, id)
}

// answered waits until the page no longer lists the request of card.
func (p *webPage) answered(t *testing.T, card string) {
	t.Helper()
	p.WaitJS(t, 20*time.Second, "the answered request to leave the page", `(sel) => document.querySelector(sel) === null`, card)
}

// TestWebApprovalRealClaudeTeammate: the person leads a real Claude Code
// teammate from paneteam and answers it from paneteam web's page, in a
// real browser. The teammate's request to run a Bash command shows on the
// page with its command; Approve runs it and its output reaches the
// model; a message sent from the page reaches the model; Deny with
// feedback keeps the command from running and the model reads the
// feedback. The teammate is keyed (paneteam leads): every answer is
// signed, so an answer that reached it unsigned would be refused.
func TestWebApprovalRealClaudeTeammate(t *testing.T) {
	lt := newLedTeam(t, "webapprovals")
	tok := fmt.Sprintf("%d", time.Now().UnixNano()%1_000_000_000)
	marker := func(n string) string { return filepath.Join(lt.s.Cwd, n) }
	approveCmd := "echo approved-" + tok + " | tee marker-approve"
	denyCmd := "echo denied-" + tok + " | tee marker-deny"
	stepTwo := "Do step two, " + tok + "."
	var mu sync.Mutex
	var last string
	lt.api.Script(func(r *claudetest.Request) (claudetest.Reply, bool) {
		mu.Lock()
		defer mu.Unlock()
		tail := r.TailText()
		run := func(cmd string) (claudetest.Reply, bool) {
			last = cmd
			return claudetest.Calls(claudetest.Tool("Bash", map[string]any{"command": cmd, "description": "run the step's command"})), true
		}
		switch {
		case strings.Contains(tail, "mailbox write failed"): // see TestApprovalRealClaudeTeammate
			return run(last)
		case strings.Contains(tail, "Do step one"):
			return run(approveCmd)
		case strings.Contains(tail, stepTwo):
			return run(denyCmd)
		}
		return claudetest.Reply{}, false
	})
	lt.spawnClaude(t, "alice", "default", "You are alice. Do step one.")
	page := openWeb(t, lt)

	// result waits for the model's tool_result of its latest call of cmd:
	// the one the request on the page is for, as a call whose request
	// could not be delivered is made again (see the script above).
	result := func(t *testing.T, cmd string) string {
		t.Helper()
		ids := bashCalls(lt.api, cmd)
		if len(ids) == 0 {
			t.Fatalf("the model never called Bash with %q", cmd)
		}
		call := ids[len(ids)-1]
		r := lt.api.WaitRequest(t, wait, 0, "with the tool_result of "+call, func(r *claudetest.Request) bool {
			_, ok := r.ToolResult(call)
			return ok
		})
		out, _ := r.ToolResult(call)
		return out
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	t.Run("Approve on the page runs the command and its output reaches the model", func(t *testing.T) {
		card := page.requestCard(t, "alice", approveCmd)
		if exists(marker("marker-approve")) {
			t.Fatalf("the command ran before anyone approved it")
		}
		page.ClickButton(t, card, "Approve")
		if got := result(t, approveCmd); !strings.Contains(got, "approved-"+tok) {
			t.Errorf("tool_result the model got = %q, want the command's output approved-%s", got, tok)
		}
		if b, err := os.ReadFile(marker("marker-approve")); err != nil || strings.TrimSpace(string(b)) != "approved-"+tok {
			t.Errorf("marker-approve = %q, %v: want approved-%s (the command ran)", b, err, tok)
		}
		page.answered(t, card)
		if !regexp.MustCompile(`"approve perm[^"]* from alice": "done"`).MatchString(page.out.String()) {
			t.Errorf("paneteam web printed no line for the approval:\n%s", page.out)
		}
	})

	sent := t.Run("a message sent from the page reaches the teammate's model", func(t *testing.T) {
		seq := lt.api.LastSeq()
		page.Select(t, "#send-to", "alice")
		page.Type(t, "#send-text", stepTwo)
		page.ClickButton(t, "#send-form", "Send")
		got := lt.api.WaitMessages(t, wait, seq, stepTwo)
		if !strings.Contains(got.TailText(), stepTwo) {
			t.Errorf("the model's newest turn does not hold the page's message %q:\n%s", stepTwo, got.TailText())
		}
	})

	if !sent {
		return // the message asks for the command to deny: without it nothing comes
	}
	t.Run("Deny with feedback on the page: the command does not run and the model reads why", func(t *testing.T) {
		const feedback = "not now: use the test target"
		card := page.requestCard(t, "alice", denyCmd)
		page.Type(t, card+` input[aria-label="Feedback for alice's request"]`, feedback)
		page.ClickButton(t, card, "Deny")
		got := result(t, denyCmd)
		if !strings.Contains(got, feedback) {
			t.Errorf("tool_result the model got = %q, want the feedback %q", got, feedback)
		}
		if strings.Contains(got, "denied-"+tok) || exists(marker("marker-deny")) {
			t.Errorf("the denied command ran (tool_result %q, marker-deny exists: %v)", got, exists(marker("marker-deny")))
		}
		page.answered(t, card)
	})
}

// TestWebApprovalRealClaudePlan: a real Claude Code teammate in plan mode
// submits its plan (ExitPlanMode, as in TestApprovalRealClaudePlan); the
// page shows the plan; rejected there with feedback, the model reads
// "[Plan Rejected] <feedback>" and submits a revised plan, which the page
// shows in turn; approved there, the model reads "[Plan Approved]" and
// the teammate leaves plan mode. Approve is clicked the moment the model
// is told its revised plan went to the lead, while the turn that
// submitted it is still ending: Claude Code 2.1.332 could apply an
// approval read then and never tell the model (approval.DefaultTurnWait),
// so paneteam writes it once that turn has ended.
func TestWebApprovalRealClaudePlan(t *testing.T) {
	lt := newLedTeam(t, "webplans")
	const plan1 = "# Plan\n\n1. Write after-plan.txt\n"
	const plan2 = "# Plan, revised\n\n1. Write after-plan.txt\n2. Run the test target\n"
	const feedback = "split it: run the test target as well"
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
		}
		return claudetest.Reply{}, false
	})
	lt.spawnClaude(t, "paula", "plan", "You are paula: plan the change, then make it.")
	page := openWeb(t, lt)

	// submitted waits until the model has been told that its plan went to
	// the lead (after Seq after). Observed with 2.1.332: ExitPlanMode
	// records the request it then waits on only once its write to the
	// lead's inbox has finished, and an answer the teammate reads before
	// that is taken for one to its previous request (already answered:
	// dropped, the model never hears of it). A person reading the plan
	// does not answer within those milliseconds; a test clicking on the
	// card the moment it shows can.
	submitted := func(t *testing.T, after int) {
		t.Helper()
		lt.api.WaitRequest(t, wait, after, "telling the model its plan was submitted", func(r *claudetest.Request) bool {
			return r.MainLoop && strings.Contains(r.TailText(), "Your plan has been submitted to the team lead")
		})
	}

	var rejected int // the Seq of the request that told the model
	t.Run("rejected with feedback on the page, the model reads the feedback", func(t *testing.T) {
		card := page.requestCard(t, "paula", "1. Write after-plan.txt")
		if shown := browsertest.Eval[string](t, page.Browser, fmt.Sprintf(`document.querySelector(%q).textContent`, card+" .plan")); shown != plan1 {
			t.Errorf("the page shows the plan as %q, want %q", shown, plan1)
		}
		submitted(t, 0)
		seq := lt.api.LastSeq()
		page.Type(t, card+` input[aria-label="Feedback for paula's request"]`, feedback)
		page.ClickButton(t, card, "Deny")
		got := lt.api.WaitMessages(t, wait, seq, "[Plan Rejected]")
		rejected = got.Seq
		if !strings.Contains(got.TailText(), "[Plan Rejected] "+feedback) {
			t.Errorf("the model was told:\n%s\nwant [Plan Rejected] %s", got.TailText(), feedback)
		}
		page.answered(t, card)
	})

	t.Run("approved on the page, the model reads that it was", func(t *testing.T) {
		card := page.requestCard(t, "paula", "2. Run the test target")
		submitted(t, rejected)
		seq := lt.api.LastSeq()
		t.Cleanup(func() {
			if t.Failed() {
				b, _ := os.ReadFile(filepath.Join(lt.s.ConfigDir, "teams", lt.name, "inboxes", "paula.json"))
				t.Logf("paula in the team's config: %s\nher inbox:\n%s\nher pane:\n%s",
					memberRow(t, lt, "paula"), b, lt.s.PaneScreen(lt.pane("paula")))
			}
		})
		page.ClickButton(t, card, "Approve")
		// Either answer reaches the model: a wrong one fails at once.
		got := lt.api.WaitRequest(t, wait, seq, "telling the model the plan's fate", func(r *claudetest.Request) bool {
			return r.MainLoop && (strings.Contains(r.TailText(), "[Plan Approved]") || strings.Contains(r.TailText(), "[Plan Rejected]"))
		})
		if !strings.Contains(got.TailText(), "[Plan Approved]") {
			t.Errorf("after Approve the model was told:\n%s", got.TailText())
		}
		// Approved in the page's default mode: Claude Code records the mode
		// it switched to in the team's config.
		lt.s.Wait(t, wait, "paula to leave plan mode", func() bool {
			return strings.Contains(memberRow(t, lt, "paula"), `"mode":"default"`)
		})
		page.answered(t, card)
		// The turn the approval started ends before paula is stopped, so
		// that she is not writing her files as the test removes them.
		lt.s.Wait(t, wait, "paula's turn after the approval to end", func() bool {
			return strings.Contains(memberRow(t, lt, "paula"), `"isActive":false`)
		})
	})
}

// memberRow is name's row in the team's config, compact.
func memberRow(t *testing.T, lt *ledTeam, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(lt.s.ConfigDir, "teams", lt.name, "config.json"))
	if err != nil {
		return err.Error()
	}
	var cfg struct {
		Members []json.RawMessage `json:"members"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return err.Error()
	}
	for _, m := range cfg.Members {
		var row struct{ Name string }
		if json.Unmarshal(m, &row) == nil && row.Name == name {
			var out bytes.Buffer
			json.Compact(&out, m) //nolint:errcheck // it parsed
			return out.String()
		}
	}
	return "(no member " + name + ")"
}

// bashCalls lists the ids of the model's Bash calls of cmd so far.
func bashCalls(api *claudetest.API, cmd string) []string {
	var ids []string
	for _, r := range api.MainLoop() {
		for _, b := range r.Reply.Blocks {
			if in, _ := b.Input.(map[string]any); b.Tool == "Bash" && in["command"] == cmd {
				ids = append(ids, b.ID)
			}
		}
	}
	return ids
}

// lockedBuffer is a bytes.Buffer that a process's output goroutine writes
// while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
