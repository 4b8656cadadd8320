// Package interop proves paneteam against the real Claude Code: Claude's
// interactive UI runs in a private tmux server against a scripted fake
// model (internal/claudetest), and each scenario asserts what reached the
// files and what Claude delivered to its model.
package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// Generous: the native binary starts in about a second on an idle machine
// but shares 2 cores with other test packages in CI.
const wait = 90 * time.Second

// pt runs the built paneteam as the user would beside Claude: in the
// project folder, with Claude's environment (its config folder, HOME, the
// fake model's URL), outside tmux.
func pt(t *testing.T, s *claudetest.Session, args ...string) (string, string, int) {
	t.Helper()
	return ptWith(t, s, nil, args...)
}

// ptWith is pt with extra KEY=VALUE pairs (e.g. Session.TmuxEnv: as if
// typed in Claude's pane).
func ptWith(t *testing.T, s *claudetest.Session, extra []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(testutil.Binary(t), args...)
	cmd.Env = testutil.Env(append(append(s.Env(), "PANETEAM_ROOT="+s.ConfigDir), extra...)...)
	cmd.Dir = s.Cwd
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run paneteam %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

func ptOK(t *testing.T, s *claudetest.Session, args ...string) string {
	t.Helper()
	out, errOut, code := pt(t, s, args...)
	if code != 0 {
		t.Fatalf("paneteam %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
}

// statusMembers runs `paneteam status --json` and returns the members it
// lists for team (nil when the team is not listed).
func statusMembers(t *testing.T, s *claudetest.Session, team string) []string {
	t.Helper()
	var teams []struct {
		Name    string `json:"name"`
		Members []struct {
			Name string `json:"name"`
		} `json:"members"`
	}
	out := ptOK(t, s, "status", "--json")
	if err := json.Unmarshal([]byte(out), &teams); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	for _, tm := range teams {
		if tm.Name == team {
			names := []string{}
			for _, m := range tm.Members {
				names = append(names, m.Name)
			}
			return names
		}
	}
	return nil
}

func mustConfig(t *testing.T, s *claudetest.Session) claudetest.TeamConfig {
	t.Helper()
	c, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// panePID is the pid of the process in a pane of Claude's tmux server.
func panePID(t *testing.T, s *claudetest.Session, pane string) int {
	t.Helper()
	out, err := s.Tmux.Run(t.Context(), "display-message", "-p", "-t", pane, "#{pane_pid}")
	if err != nil {
		t.Fatalf("pid of pane %s: %v", pane, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("pid of pane %s: %q", pane, out)
	}
	return pid
}

// isZombie: pid is gone or a zombie that stays one (proc.Alive: a
// process in the middle of an exec looks like a zombie for an instant).
func isZombie(pid int) bool { return !proc.Alive(pid, "") }

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// inboxEntry is an inbox element as Claude Code writes it
// (docs/PROTOCOL.md §6, §7).
type inboxEntry struct {
	From      string `json:"from"`
	Text      string `json:"text"`
	Summary   string `json:"summary"`
	Timestamp string `json:"timestamp"`
	MsgV      *int   `json:"msgV"`
	MsgID     string `json:"msg_id"`
	Type      string `json:"type"`
	Read      *bool  `json:"read"`
}

func readInbox(t *testing.T, s *claudetest.Session, name string) []inboxEntry {
	t.Helper()
	var entries []inboxEntry
	path := filepath.Join(s.TeamDir(), "inboxes", name+".json")
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil
	}
	readJSON(t, path, &entries)
	return entries
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// spawnMember adds a paneteam member running `sleep 600` in paneteam's
// in-process host; endMember ends it when the test ends.
func spawnMember(t *testing.T, s *claudetest.Session, name string) {
	t.Helper()
	endMember(t, s, name)
	ptOK(t, s, "spawn-pane", "--team", s.TeamName(), "--name", name, "--backend", "in-process", "--", "sleep", "600")
}

// endMember registers, before the spawn that may fail half-way, the end
// of a member paneteam starts: kill-pane, then by pid whatever still
// runs (paneteam's in-process host, or the process in its tmux pane).
func endMember(t *testing.T, s *claudetest.Session, name string) {
	t.Cleanup(func() {
		var pids []int
		if c, err := s.Config(); err == nil {
			var raw struct {
				Members []struct {
					Name       string `json:"name"`
					TmuxPaneID string `json:"tmuxPaneId"`
					Paneteam   struct {
						PID int `json:"pid"`
					} `json:"paneteam"`
				} `json:"members"`
			}
			json.Unmarshal(c.Raw, &raw)
			for _, m := range raw.Members {
				if m.Name != name {
					continue
				}
				if m.Paneteam.PID > 0 {
					pids = append(pids, m.Paneteam.PID)
				}
				if strings.HasPrefix(m.TmuxPaneID, "%") {
					if out, err := s.Tmux.Run(context.Background(), "display-message", "-p", "-t", m.TmuxPaneID, "#{pane_pid}"); err == nil {
						if pid, err := strconv.Atoi(strings.TrimSpace(out)); err == nil {
							pids = append(pids, pid)
						}
					}
				}
			}
		}
		pt(t, s, "kill-pane", "--team", s.TeamName(), "--name", name)
		for _, pid := range pids {
			if syscall.Kill(pid, 0) == nil && !isZombie(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// TestClaudeCodeSessionInterop runs one real Claude Code session
// (each launch costs seconds of CPU) and proves, step by step, that
// paneteam and Claude's lead share one team: the team is found, a paneteam
// member receives the lead's SendMessage, a paneteam message reaches the
// lead's model, and tasks flow both ways.
func TestClaudeCodeSessionInterop(t *testing.T) {
	api := claudetest.NewAPI(t)
	s := claudetest.Start(t, claudetest.Options{API: api, Team: "interop"})
	cfg := s.WaitTeam(t, wait)
	t.Logf("Claude Code wrote its team after %s", time.Since(s.Started).Round(time.Millisecond))
	team := cfg.Name
	if team != "interop" {
		t.Fatalf("team name = %q, want interop (CLAUDE_INTERNAL_ASSISTANT_TEAM_NAME)", team)
	}

	// A paneteam member beside Claude's own, for the whole session.
	spawnMember(t, s, "ptw")

	t.Run("status finds Claude's session team", func(t *testing.T) {
		if lp := cfg.LeadProcess; lp.PID != s.PID || lp.PIDSpace == "" || lp.ClaimedAt == 0 {
			t.Errorf("config.json leadProcess = %+v, want Claude's pid %d with pidSpace and claimedAt", lp, s.PID)
		}
		members := statusMembers(t, s, team)
		if !contains(members, "team-lead") || !contains(members, "ptw") {
			t.Fatalf("paneteam status --json lists team %s with members %v, want team-lead and ptw", team, members)
		}
	})

	t.Run("Claude's lead messages a paneteam member", func(t *testing.T) {
		after := api.LastSeq()
		api.On("tell ptw hello",
			claudetest.Calls(claudetest.Tool("ToolSearch", map[string]any{"query": "select:SendMessage", "max_results": 5})),
			claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "ptw", "message": "hello ptw, from Claude's lead", "summary": "greeting"})),
			claudetest.Text("Sent."),
		)
		s.Submit(t, wait, "tell ptw hello")
		// What the model was told: the send succeeded.
		res := api.WaitMessages(t, wait, after, "Message sent to ptw")
		if !strings.Contains(res.TailText(), `"success":true`) {
			t.Errorf("SendMessage result Claude gave its model: %s", res.TailText())
		}
		// What reached paneteam's side: one Claude Code entry in ptw's inbox.
		var got *inboxEntry
		testutil.Eventually(t, 10*time.Second, "the message in ptw's inbox", func() bool {
			for _, e := range readInbox(t, s, "ptw") {
				if e.Text == "hello ptw, from Claude's lead" {
					got = &e
					return true
				}
			}
			return false
		})
		if got.From != "team-lead" || got.MsgV == nil || *got.MsgV != 1 || !uuidRE.MatchString(got.MsgID) ||
			got.Type != "message" || got.Read == nil || *got.Read || got.Timestamp == "" {
			t.Errorf("ptw's inbox entry = %+v, want from team-lead, msgV 1, a UUID msg_id, type message, read false", *got)
		}
		out := ptOK(t, s, "inbox", "--team", team, "--name", "ptw", "--json")
		if !strings.Contains(out, "hello ptw, from Claude's lead") {
			t.Errorf("paneteam inbox --name ptw does not show Claude's message:\n%s", out)
		}
	})

	t.Run("paneteam reaches Claude's lead once it has a teammate", func(t *testing.T) {
		// Claude Code polls the lead's inbox only while it has
		// spawned a teammate this session (docs/PROTOCOL.md §6).
		const bobPrompt = "You are bob; wait for messages."
		after := api.LastSeq()
		api.On("start a teammate named bob",
			claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "helper bob", "prompt": bobPrompt, "name": "bob"})),
			claudetest.Text("Spawned bob."),
		)
		s.Submit(t, wait, "start a teammate named bob")
		spawned := api.WaitMessages(t, wait, after, "Spawned successfully")
		if !strings.Contains(spawned.TailText(), "name: bob") {
			t.Errorf("Agent result: %s", spawned.TailText())
		}
		api.WaitMessages(t, wait, after, bobPrompt) // bob's own first turn
		testutil.Eventually(t, 10*time.Second, "paneteam status to list Claude's teammate bob", func() bool {
			return contains(statusMembers(t, s, team), "bob")
		})

		after = api.LastSeq()
		api.On("status report from ptw", claudetest.Text("Thanks, ptw."))
		ptOK(t, s, "send", "--team", team, "--to", "team-lead", "--from", "ptw", "status report from ptw: all green")
		got := api.WaitMessages(t, wait, after, "status report from ptw: all green")
		tail := got.TailText()
		if !strings.Contains(tail, `<teammate-message teammate_id="ptw"`) || strings.Contains(tail, `verified="false"`) {
			t.Errorf("Claude delivered paneteam's message to its model as:\n%s\nwant a <teammate-message teammate_id=\"ptw\"> not marked verified=\"false\"", tail)
		}
		// Delivered entries are pruned from the file (docs/PROTOCOL.md §6).
		testutil.Eventually(t, 10*time.Second, "Claude to remove the delivered message from team-lead.json", func() bool {
			for _, e := range readInbox(t, s, "team-lead") {
				if strings.Contains(e.Text, "all green") {
					return false
				}
			}
			return true
		})
	})

	t.Run("a Claude teammate paneteam spawns beside Claude's pane", func(t *testing.T) {
		// Runs after bob exists: Claude's lead reads its inbox only then.
		const prompt = "You are carol: report to the lead."
		api.On(prompt,
			claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "team-lead", "message": "carol reporting for duty", "summary": "report"})),
			claudetest.Text("Reported."),
		)
		// Carol's model approves the shutdown request it is shown, with
		// the request id Claude delivered to it.
		requestID := regexp.MustCompile(`"requestId":"(shutdown-[0-9]+@carol)"`)
		api.Script(func(r *claudetest.Request) (claudetest.Reply, bool) {
			m := requestID.FindStringSubmatch(r.TailText())
			if m == nil || !strings.Contains(r.TailText(), "This is a shutdown request") {
				return claudetest.Reply{}, false
			}
			return claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "team-lead",
				"message": map[string]any{"type": "shutdown_response", "request_id": m[1], "approve": true}})), true
		})
		defer api.Script(nil)

		after := api.LastSeq()
		endMember(t, s, "carol")
		// As if run from a keybinding in Claude's own pane, with no
		// --backend: ptw's in-process spawn must not send carol there.
		ptWith(t, s, s.TmuxEnv(t), "spawn-pane", "--team", team, "--name", "carol", "--claude",
			"--permission-mode", "bypassPermissions", "--prompt", prompt, "--", s.Bin)
		var pane string
		for _, m := range mustConfig(t, s).Members {
			if m.Name == "carol" {
				pane = m.TmuxPaneID
			}
		}
		if !strings.HasPrefix(pane, "%") {
			t.Fatalf("config.json records carol's pane as %q, want a tmux pane id", pane)
		}
		panePID := panePID(t, s, pane)
		window, err := s.Tmux.Run(t.Context(), "list-panes", "-t", s.Pane, "-F", "#{pane_id}")
		if err != nil || !contains(strings.Fields(window), pane) {
			t.Errorf("carol's pane %s is not in Claude's window (panes %q, %v)", pane, window, err)
		}

		// Carol's model got the prompt as its first turn.
		first := api.WaitMessages(t, wait, after, prompt)
		if tail := first.TailText(); !strings.Contains(tail, "<teammate-message") || strings.Contains(tail, `verified="false"`) {
			t.Errorf("carol's first turn:\n%s\nwant the prompt in a <teammate-message> not marked verified=\"false\"", tail)
		}
		// Claude's lead got carol's report.
		report := api.WaitRequest(t, wait, after, "of Claude's lead with carol's report", func(r *claudetest.Request) bool {
			return r.SessionID() == cfg.LeadSessionID && strings.Contains(r.TailText(), "carol reporting for duty")
		})
		if tail := report.TailText(); !strings.Contains(tail, `<teammate-message teammate_id="carol"`) || strings.Contains(tail, `verified="false">
carol reporting`) {
			t.Errorf("the lead's model got carol's report as:\n%s", tail)
		}

		after = api.LastSeq()
		out, errOut, code := pt(t, s, "shutdown", "--team", team, "--name", "carol", "--timeout", "60s")
		if code != 0 {
			t.Fatalf("paneteam shutdown --name carol: exit %d\n%s%s", code, out, errOut)
		}
		asked := api.WaitMessages(t, wait, after, "This is a shutdown request")
		if !requestID.MatchString(asked.TailText()) {
			t.Errorf("carol's model was shown:\n%s\nwant paneteam's shutdown_request", asked.TailText())
		}
		testutil.Eventually(t, 30*time.Second, "carol's claude process to exit", func() bool {
			return syscall.Kill(panePID, 0) != nil || isZombie(panePID)
		})
		for _, m := range mustConfig(t, s).Members {
			if m.Name == "carol" {
				t.Errorf("carol is still a member after shutdown: %+v", m)
			}
		}
	})

	t.Run("tasks flow both ways", func(t *testing.T) {
		after := api.LastSeq()
		api.On("file a task",
			claudetest.Calls(claudetest.Tool("ToolSearch", map[string]any{"query": "select:TaskCreate,TaskList", "max_results": 5})),
			claudetest.Calls(claudetest.Tool("TaskCreate", map[string]any{"subject": "Task made by Claude", "description": "from the lead's model"})),
			claudetest.Text("Filed."),
		)
		s.Submit(t, wait, "file a task")
		api.WaitMessages(t, wait, after, "Task made by Claude") // TaskCreate's result
		testutil.Eventually(t, 10*time.Second, "paneteam task list to show Claude's task", func() bool {
			out, _, code := pt(t, s, "task", "list", "--team", team, "--json")
			return code == 0 && strings.Contains(out, "Task made by Claude")
		})

		id := strings.TrimSpace(ptOK(t, s, "task", "create", "--team", team, "--subject", "Task made by paneteam"))
		after = api.LastSeq()
		api.On("list the tasks",
			claudetest.Calls(claudetest.Tool("TaskList", map[string]any{})),
			claudetest.Text("Listed."),
		)
		req := s.Submit(t, wait, "list the tasks")
		call := req.Reply.Blocks[0].ID
		res := api.WaitRequest(t, wait, after, "with TaskList's result", func(r *claudetest.Request) bool {
			_, ok := r.ToolResult(call)
			return ok
		})
		out, _ := res.ToolResult(call)
		if !strings.Contains(out, "Task made by paneteam") || !strings.Contains(out, "#"+id) {
			t.Errorf("TaskList result Claude gave its model:\n%s\nwant paneteam's task #%s", out, id)
		}
	})
}
