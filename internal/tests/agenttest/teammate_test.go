package agenttest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// world is one test's team with a private tmux server whose environment
// is the person's: HOME in the test's folder, the CLI's folder on PATH,
// every connection but the scripted model's refused.
type world struct {
	t       *testing.T
	pt      string // paneteam
	root    string
	home    string // the person's HOME
	work    string // the teammate's folder
	srv     tmux.Server
	tmuxEnv []string
	// env is what the person's environment has, the tmux server's: for
	// a paneteam run from outside tmux.
	env   []string
	team  team.Team
	model *agenttest.Model
}

func newWorld(t *testing.T, cli agenttest.CLI, cliBin string, model *agenttest.Model) *world {
	t.Helper()
	w := &world{t: t, pt: testutil.Binary(t), root: testutil.Root(t), home: t.TempDir(), work: t.TempDir(), model: model}
	// The person's own config: the scripted model as the CLI's provider.
	extraEnv := agenttest.PersonConfig(t, cli, w.home, model)
	testutil.MCPBinary(t)
	// Runs after the tmux server is killed and before the team's folder is
	// removed: a teammate whose pane was just hung up on may still write
	// its last state there for a moment.
	t.Cleanup(func() {
		deadline := time.Now().Add(15 * time.Second)
		for len(leftover(w.root, "")) > 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	})
	w.srv = testutil.TmuxServer(t)
	vars := append([]string{
		"PATH=" + cliBin + ":" + filepath.Dir(w.pt) + ":" + os.Getenv("PATH"),
		"HOME=" + w.home, "XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(w.home, ".local", "share"), "XDG_STATE_HOME=" + filepath.Join(w.home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"), "TERM=xterm-256color", "COLORTERM=truecolor",
	}, model.ProxyEnv()...)
	testutil.SetServerEnv(t, w.srv, append(vars, extraEnv...)...)
	w.env = append(append([]string(nil), vars...), extraEnv...)
	// tmux gives a new pane the PATH of the client that made it. The
	// home folders are the panes' too: paneteam run from the test keeps
	// its state (launch records, usage) in the test's home, as the
	// teammates do, never in the developer's.
	w.tmuxEnv = append(testutil.TmuxEnv(t, w.srv, testutil.FirstPane(t, w.srv)), "PANETEAM_ROOT="+w.root)
	w.tmuxEnv = append(w.tmuxEnv, vars[:6]...)
	out := w.paneteam("team-create", "review")
	tm, _, err := team.Open(w.root, strings.TrimSpace(out))
	if err != nil {
		t.Fatal(err)
	}
	w.team = tm
	return w
}

// paneteam runs paneteam in the test's tmux world and returns its stdout.
func (w *world) paneteam(args ...string) string {
	w.t.Helper()
	cmd := exec.Command(w.pt, args...)
	cmd.Env = testutil.Env(w.tmuxEnv...)
	cmd.Dir = w.work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("paneteam %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

func (w *world) inbox(name string) []mailbox.Message {
	msgs, err := mailbox.New(w.team.InboxPath(name), lockfile.Options{}).ReadAll()
	if err != nil {
		w.t.Fatal(err)
	}
	arch, _ := mailbox.New(w.team.InboxPath(name), lockfile.Options{}).Archived()
	return append(arch, msgs...)
}

// idles are the idle notifications the lead got from name.
func (w *world) idles(name string) []mailbox.IdleNotification {
	var out []mailbox.IdleNotification
	for _, m := range w.inbox(team.LeadName) {
		if p, ok := mailbox.Parse(m.Text); ok && p.Type == mailbox.TypeIdle && m.From == name {
			if n, ok := p.Value.(*mailbox.IdleNotification); ok {
				out = append(out, *n)
			}
		}
	}
	return out
}

func (w *world) screen(pane string) string {
	out, err := w.srv.Run(context.Background(), "capture-pane", "-p", "-S", "-200", "-t", pane)
	if err != nil {
		return "(capture-pane: " + err.Error() + ")"
	}
	return out
}

// leftover lists live processes whose environment names the test's team
// root and the agent (any agent, for ""): what that teammate left behind.
func leftover(root, agent string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(b, []byte("PANETEAM_ROOT="+root+"\x00")) ||
			agent != "" && !bytes.Contains(b, []byte("PANETEAM_AGENT="+agent+"\x00")) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && bytes.Contains(st, []byte(") Z ")) {
			continue // a zombie, already gone
		}
		cmd, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		out = append(out, filepath.Base(d)+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}

// script plays the model of an agent CLI teammate: on its first prompt
// it claims task 1 and tells the lead; on a notice of new messages it
// reads its inbox and says what it read. Requests without the team's
// tools (the CLIs' own side requests: titles, summaries) get a short text.
type script struct {
	call    func(tool string, args any) []agenttest.Output // a call of a team tool, named as the CLI names it
	mu      sync.Mutex
	calls   map[string]string // call id (or tool name) -> step
	hold    chan struct{}     // closed to let turn 1 finish (release)
	once    sync.Once
	inboxed string // the read_inbox result the model saw
}

func newScript(call func(string, any) []agenttest.Output) *script {
	return &script{call: call, calls: map[string]string{}, hold: make(chan struct{})}
}

func (s *script) release() { s.once.Do(func() { close(s.hold) }) }

func (s *script) answer(r *agenttest.Request) []agenttest.Output {
	if !r.OffersTool("claim_task") {
		// Side requests; Gemini CLI's want JSON.
		switch {
		case r.Contains("complexity_score"):
			return agenttest.Text(`{"complexity_reasoning": "a routine step", "complexity_score": 10}`)
		case r.Contains("next_speaker"):
			return agenttest.Text(`{"reasoning": "the turn is done", "next_speaker": "user"}`)
		}
		return agenttest.Text("Teammate work")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	call := func(step, tool string, args any) []agenttest.Output {
		out := s.call(tool, args)
		out[0].Call.ID = fmt.Sprintf("call_%s_%d", step, r.Seq)
		s.calls[out[0].Call.ID] = step
		s.calls[out[0].Call.Name] = step
		return out
	}
	last := r.Last()
	if last.CallID != "" || last.ToolName != "" {
		step, ok := s.calls[last.CallID]
		if !ok {
			step = s.calls[last.ToolName]
		}
		switch step {
		case "claim":
			return call("tell", "send_message", map[string]any{"to": "team-lead", "text": "claimed task 1", "summary": "claimed 1"})
		case "tell":
			s.mu.Unlock()
			<-s.hold // the turn stays busy until the test has sent its messages
			s.mu.Lock()
			return agenttest.Text("Task 1 is mine now.")
		case "read":
			s.inboxed = last.ToolOutput
			return agenttest.Text("I read my messages.")
		}
		return agenttest.Text("done")
	}
	switch {
	case strings.Contains(last.UserText, "new message"):
		return call("read", "read_inbox", map[string]any{})
	case strings.Contains(last.UserText, "You are coder"):
		return call("claim", "claim_task", map[string]any{"task_id": "1"})
	}
	return agenttest.Text("ok")
}

// A Codex teammate, started by paneteam against a scripted model (the
// Responses API): see teammateScenario. Codex reports a turn's end through
// its notify program.
func TestCodexTeammate(t *testing.T) {
	bin := agenttest.Install(t, agenttest.Codex)
	sc := newScript(func(tool string, args any) []agenttest.Output { return agenttest.CallTool("mcp__team", tool, args) })
	model := agenttest.NewModel(t, sc.answer)
	t.Cleanup(sc.release) // before the model's server closes: a held reply would keep it open
	w := newWorld(t, agenttest.Codex, bin, model)
	teammateScenario(t, w, sc, "codex")
}

// A Gemini CLI teammate against a scripted Gemini API: see
// teammateScenario. Gemini CLI reports a turn's end through its AfterAgent
// hook.
func TestGeminiTeammate(t *testing.T) {
	bin := agenttest.Install(t, agenttest.Gemini)
	sc := newScript(func(tool string, args any) []agenttest.Output { return agenttest.CallTool("", "mcp_team_"+tool, args) })
	model := agenttest.NewModel(t, sc.answer)
	t.Cleanup(sc.release)
	w := newWorld(t, agenttest.Gemini, bin, model)
	teammateScenario(t, w, sc, "gemini")
}

// An OpenCode teammate against a scripted Chat Completions API: see
// teammateScenario. OpenCode reports a turn's end through a plugin's
// session.idle event.
func TestOpenCodeTeammate(t *testing.T) {
	bin := agenttest.Install(t, agenttest.OpenCode)
	sc := newScript(func(tool string, args any) []agenttest.Output { return agenttest.CallTool("", "team_"+tool, args) })
	model := agenttest.NewModel(t, sc.answer)
	t.Cleanup(sc.release)
	w := newWorld(t, agenttest.OpenCode, bin, model)
	teammateScenario(t, w, sc, "opencode")
}

// teammateScenario spawns the agent CLI as a teammate with 'spawn-pane
// --agent': it gets its prompt, claims a task and messages its lead
// through paneteam's MCP tools; its turn end reaches the lead as an idle
// notification with its last reply, through the CLI's own hook; messages
// sent while it works wait for the turn's end and are announced, never
// typed (so "!touch" and "/quit" from a teammate run nothing); shutdown
// ends it and leaves no process.
func teammateScenario(t *testing.T, w *world, script *script, agent string) {
	model := w.model
	w.paneteam("task", "create", "--team", "review", "--subject", "Write the parser", "--description", "in parse.go")
	w.paneteam("spawn-pane", "--team", "review", "--name", "tester", "--", w.pt, "teammate")
	out := w.paneteam("spawn-pane", "--team", "review", "--name", "coder", "--json", "--cwd", w.work,
		"--agent", agent, "--prompt", "Take task 1.")
	var spawned struct {
		PaneID string `json:"pane_id"`
	}
	json.Unmarshal([]byte(out), &spawned)
	defer func() {
		if t.Failed() {
			t.Logf("coder's screen:\n%s", w.screen(spawned.PaneID))
			for _, r := range model.Requests() {
				t.Logf("model request %d %s: last %+.300v; system %.3000s; gen %v", r.Seq, r.Path, r.Last(), r.JSON["systemInstruction"], r.JSON["generationConfig"])
			}
			t.Logf("refused: %v", model.Refused())
		}
	}()

	// Its model calls the team tools: the task is its, the lead has its word.
	lt := w.team.Tasks(lockfile.Options{})
	testutil.Eventually(t, 120*time.Second, "coder to claim task 1 and message the lead", func() bool {
		task, err := lt.Get("1")
		if err != nil || task.Owner != "coder" {
			return false
		}
		for _, m := range w.inbox(team.LeadName) {
			if m.From == "coder" && m.Text == "claimed task 1" {
				return true
			}
		}
		return false
	})
	if len(w.idles("coder")) != 0 {
		t.Fatalf("idle before the turn ended: %+v", w.idles("coder"))
	}
	// While it works: a teammate's messages that would be Codex commands.
	marker := filepath.Join(w.work, "MARKER")
	for _, text := range []string{"!touch " + marker, "/quit"} {
		w.paneteam("send", "--team", "review", "--from", "tester", "--to", "coder", text)
	}
	time.Sleep(500 * time.Millisecond) // the wrapper polls every 250 ms: give it the chance to misbehave
	if screen := w.screen(spawned.PaneID); strings.Contains(screen, "new message") {
		t.Fatalf("a notice was typed into Codex mid-turn:\n%s", screen)
	}
	for _, r := range model.Requests() {
		if r.Contains("new message") {
			t.Fatalf("a notice reached Codex mid-turn (request %d)", r.Seq)
		}
	}
	turnEnd := time.Now()
	script.release()

	// The turn ends: Codex's notify hook tells the lead, with the reply.
	testutil.Eventually(t, 30*time.Second, "the lead to get coder's idle_notification", func() bool {
		return len(w.idles("coder")) > 0
	})
	idle := w.idles("coder")[0]
	t.Logf("idle_notification %s after the model's last reply", time.Since(turnEnd).Round(time.Millisecond))
	if idle.IdleReason != mailbox.IdleAvailable || idle.Summary != "Task 1 is mine now." || idle.Result != "Task 1 is mine now." {
		t.Errorf("idle_notification: %+v", idle)
	}
	// status says its idle is known from the hook.
	idleBy := func() map[string]string {
		var st []struct {
			Members []struct{ Name, IdleBy string }
		}
		if err := json.Unmarshal([]byte(w.paneteam("status", "--team", "review", "--json")), &st); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, m := range st[0].Members {
			out[m.Name] = m.IdleBy
		}
		return out
	}
	testutil.Eventually(t, 10*time.Second, "status to say coder's idle is known by its hook, tester's by quiet output", func() bool {
		by := idleBy()
		return by["coder"] == "hook" && by["tester"] == "quiet"
	})
	// Then, and only then, the notice; the model reads the messages as data.
	model.Wait(30*time.Second, "the notice of tester's messages and read_inbox", func(rs []*agenttest.Request) bool {
		script.mu.Lock()
		defer script.mu.Unlock()
		return script.inboxed != ""
	})
	script.mu.Lock()
	inboxed := script.inboxed
	script.mu.Unlock()
	if !strings.Contains(inboxed, "!touch") || !strings.Contains(inboxed, "/quit") {
		t.Errorf("read_inbox gave the model %s", inboxed)
	}
	for _, r := range model.Requests() {
		for _, s := range r.UserTexts() {
			if strings.Contains(s, "new message") && s != "new message from tester: read it with read_inbox" &&
				s != "new messages from tester: read them with read_inbox" {
				t.Errorf("typed into Codex: %q", s)
			}
		}
	}
	testutil.Eventually(t, 30*time.Second, "a second idle_notification", func() bool { return len(w.idles("coder")) >= 2 })
	for _, n := range w.idles("coder") {
		if n.Summary != "Task 1 is mine now." && n.Summary != "I read my messages." {
			t.Errorf("an idle_notification not from the teammate's own turns: %+v", n)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a teammate's \"!touch\" ran a shell command in Codex")
	}

	// Shutdown: approved, and nothing left running.
	w.paneteam("send", "--team", "review", "--to", "coder", "--type", "shutdown_request", "--reason", "done")
	testutil.Eventually(t, 30*time.Second, "coder's shutdown_approved", func() bool {
		for _, m := range w.inbox(team.LeadName) {
			if p, ok := mailbox.Parse(m.Text); ok && p.Type == mailbox.TypeShutdownApproved && m.From == "coder" {
				return true
			}
		}
		return false
	})
	testutil.Eventually(t, 15*time.Second, "no process of coder's left", func() bool { return len(leftover(w.root, "coder")) == 0 })
	if refused := model.Refused(); len(refused) > 0 {
		t.Logf("connections refused (as they must be): %v", refused)
	}
}
