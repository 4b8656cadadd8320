package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

// TestApprovalRealClaudeTeammate: a person leads a real Claude Code
// teammate from paneteam. Spawned with --permission-mode default,
// it asks before a Bash command that writes a file; the request reaches
// the lead's inbox within seconds of the model's tool call (observed: the
// teammate needs no lead process polling anything), carrying
// tool_use_id, the input and permission_suggestions, and the teammate
// waits on its own inbox for the answer (docs/PROTOCOL.md §8, §9).
// One teammate serves every request in turn: each step is a message the
// lead sends it. The teammate is keyed (paneteam leads, so spawn gives it
// --lead-verify-key), so every answer must be signed (§11).
func TestApprovalRealClaudeTeammate(t *testing.T) {
	lt := newLedTeam(t, "approvals")
	tok := fmt.Sprintf("%d", time.Now().UnixNano()%1_000_000_000)
	marker := func(n string) string { return filepath.Join(lt.s.Cwd, n) }
	bash := func(cmd string) claudetest.Reply {
		return claudetest.Calls(claudetest.Tool("Bash", map[string]any{"command": cmd, "description": "run the step's command"}))
	}
	approveCmd := "echo approved-" + tok + " | tee marker-approve"
	denyCmd := "echo denied-" + tok + " | tee marker-deny"
	alwaysCmd := "python3 -c 'print(\"always-" + tok + "\")'"
	forgedCmd := "echo forged-" + tok + " | tee marker-forged"
	// The fake model: each step's message gets that step's Bash call;
	// step three's call, once it ran, is made a second time. Observed with
	// 2.1.330: a teammate sometimes fails to write its permission request
	// ("could not be delivered to the team lead (mailbox write failed).
	// Retry the tool call"): it updates config.json in place (open r+,
	// write, truncate) when it turns active, and its own unlocked read of
	// config.json for the lead's name can catch the file half-written. A
	// model retries, as told; so does this one.
	var mu sync.Mutex
	var last string
	again := true
	lt.api.Script(func(r *claudetest.Request) (claudetest.Reply, bool) {
		mu.Lock()
		defer mu.Unlock()
		tail := r.TailText()
		run := func(cmd string) (claudetest.Reply, bool) { last = cmd; return bash(cmd), true }
		switch {
		case strings.Contains(tail, "mailbox write failed"):
			return run(last)
		case strings.Contains(tail, "Do step one"):
			return run(approveCmd)
		case strings.Contains(tail, "Do step two"):
			return run(denyCmd)
		case strings.Contains(tail, "Do step three"):
			return run(alwaysCmd)
		case strings.Contains(tail, "always-"+tok) && again:
			again = false
			return run(alwaysCmd)
		case strings.Contains(tail, "Do step four"):
			return run(forgedCmd)
		}
		return claudetest.Reply{}, false
	})

	lt.spawnClaude(t, "alice", "default", "You are alice. Do step one.")

	// calls lists the ids of the model's Bash calls of cmd so far.
	calls := func(cmd string) []string {
		var ids []string
		for _, r := range lt.api.MainLoop() {
			for _, b := range r.Reply.Blocks {
				if in, _ := b.Input.(map[string]any); b.Tool == "Bash" && in["command"] == cmd {
					ids = append(ids, b.ID)
				}
			}
		}
		return ids
	}
	// result waits for the request that carries the tool_result of call.
	result := func(t *testing.T, call string) string {
		t.Helper()
		r := lt.api.WaitRequest(t, wait, 0, "with the tool_result of "+call, func(r *claudetest.Request) bool {
			_, ok := r.ToolResult(call)
			return ok
		})
		out, _ := r.ToolResult(call)
		return out
	}
	// askFor waits for the teammate's request to run cmd, and checks it is
	// bound to one of the model's calls of cmd.
	askFor := func(t *testing.T, cmd string) pendingRequest {
		t.Helper()
		req := lt.waitRequest(t, "alice", "permission", func(r pendingRequest) bool {
			return r.ToolName == "Bash" && strings.Contains(string(r.Input), tok) && strings.Contains(r.Subject, cmd)
		})
		if !contains(calls(cmd), req.ToolUseID) {
			t.Errorf("request %s carries tool_use_id %q; the model's calls of %q were %v", req.ID, req.ToolUseID, cmd, calls(cmd))
		}
		return req
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	t.Run("approved, the command runs and its output reaches the model", func(t *testing.T) {
		req := askFor(t, approveCmd)
		call := req.ToolUseID
		if exists(marker("marker-approve")) {
			t.Fatalf("the command ran before anyone approved it")
		}
		out := lt.ok(t, "approve", "--team", lt.name, req.ID)
		if !strings.Contains(out, "approved") {
			t.Errorf("approve printed %q", out)
		}
		if got := result(t, call); !strings.Contains(got, "approved-"+tok) {
			t.Errorf("tool_result the model got = %q, want the command's output approved-%s", got, tok)
		}
		if b, err := os.ReadFile(marker("marker-approve")); err != nil || strings.TrimSpace(string(b)) != "approved-"+tok {
			t.Errorf("marker-approve = %q, %v: want approved-%s (the command ran)", b, err, tok)
		}
		// Answered: no longer listed, and a second answer is refused.
		for _, r := range lt.requests(t) {
			if r.ID == req.ID {
				t.Errorf("requests still lists %s after it was approved", req.ID)
			}
		}
		if _, errOut, code := lt.run(t, nil, "deny", "--team", lt.name, req.ID); code == 0 || !strings.Contains(errOut, "already answered") {
			t.Errorf("a second answer to %s: exit %d, %s; want a refusal saying it was already answered", req.ID, code, errOut)
		}
	})

	t.Run("denied with feedback, the command does not run and the model reads why", func(t *testing.T) {
		lt.ok(t, "send", "--team", lt.name, "--to", "alice", "Do step two.")
		req := askFor(t, denyCmd)
		call := req.ToolUseID
		const feedback = "not now: use the test target"
		lt.ok(t, "deny", "--team", lt.name, "--feedback", feedback, req.ID)
		got := result(t, call)
		if !strings.Contains(got, feedback) {
			t.Errorf("tool_result the model got = %q, want the feedback %q", got, feedback)
		}
		if strings.Contains(got, "denied-"+tok) || exists(marker("marker-deny")) {
			t.Errorf("the denied command ran (tool_result %q, marker-deny exists: %v)", got, exists(marker("marker-deny")))
		}
	})

	t.Run("approve --always adds Claude's suggested rule; the same command is not asked again", func(t *testing.T) {
		testutil.RequireTool(t, "python3")
		lt.ok(t, "send", "--team", lt.name, "--to", "alice", "Do step three.")
		req := askFor(t, alwaysCmd)
		first := req.ToolUseID
		// Observed with 2.1.330: a command with no prefix rule gets an
		// exact-command allow rule for the project's local settings.
		var sugg []struct {
			Type     string `json:"type"`
			Behavior string `json:"behavior"`
			Rules    []struct {
				ToolName    string `json:"toolName"`
				RuleContent string `json:"ruleContent"`
			} `json:"rules"`
			Destination string `json:"destination"`
		}
		json.Unmarshal(req.Suggestions, &sugg)
		if len(sugg) == 0 || sugg[0].Type != "addRules" || sugg[0].Behavior != "allow" || len(sugg[0].Rules) != 1 || sugg[0].Rules[0].ToolName != "Bash" {
			t.Fatalf("Claude Code suggested %s for %q; this case needs an addRules allow rule for Bash", req.Suggestions, alwaysCmd)
		}
		lt.ok(t, "approve", "--team", lt.name, "--always", req.ID)
		if got := result(t, first); !strings.Contains(got, "always-"+tok) {
			t.Errorf("first call's tool_result = %q, want always-%s", got, tok)
		}
		var second string
		lt.s.Wait(t, wait, "the model's second call of "+alwaysCmd, func() bool {
			ids := calls(alwaysCmd)
			second = ids[len(ids)-1]
			return second != first
		})
		// Either it runs, or it is asked for: wait for whichever comes.
		var got string
		ran := false
		lt.s.Wait(t, wait, "the second call to run or be asked for", func() bool {
			for _, r := range lt.api.Requests() {
				if got, ran = r.ToolResult(second); ran {
					return true
				}
			}
			for _, r := range lt.requests(t) {
				if r.ToolUseID == second {
					t.Fatalf("the second, identical command was asked again: %s (the rule was not added)", r.ID)
				}
			}
			return false
		})
		if !strings.Contains(got, "always-"+tok) {
			t.Errorf("second call's tool_result = %q, want always-%s (it ran)", got, tok)
		}
		for _, e := range readLedInbox(t, lt, "team-lead") {
			if strings.Contains(e.Text, second) {
				t.Errorf("the teammate asked for the second call: %s", e.Text)
			}
		}
		// Claude writes the rule to the destination it suggested (observed:
		// localSettings, the project's .claude/settings.local.json, with
		// the command's parentheses escaped).
		if sugg[0].Destination == "localSettings" {
			local, _ := os.ReadFile(filepath.Join(lt.s.Cwd, ".claude", "settings.local.json"))
			if !strings.Contains(string(local), `"Bash(python3`) || !strings.Contains(string(local), "always-"+tok) {
				t.Errorf(".claude/settings.local.json = %s, want the rule Bash(%s)", local, sugg[0].Rules[0].RuleContent)
			}
		}
	})

	t.Run("an unsigned answer is refused; only the lead's signed one counts", func(t *testing.T) {
		lt.ok(t, "send", "--team", lt.name, "--to", "alice", "Do step four.")
		req := askFor(t, forgedCmd)
		call := req.ToolUseID
		inbox := filepath.Join(lt.s.ConfigDir, "teams", lt.name, "inboxes", "alice.json")
		before, _ := os.ReadFile(inbox)

		// paneteam run inside a teammate is not the lead: it refuses
		// rather than let one teammate answer another's request.
		out, errOut, code := lt.run(t, []string{"PANETEAM_AGENT=bob"}, "approve", "--team", lt.name, req.ID)
		if code == 0 || !strings.Contains(errOut, "inside teammate bob") {
			t.Errorf("approve as teammate bob: exit %d\n%s%s\nwant a refusal saying only the lead answers", code, out, errOut)
		}
		if after, _ := os.ReadFile(inbox); string(after) != string(before) {
			t.Errorf("the refused approve wrote to alice's inbox:\n%s", after)
		}

		// The exact frame approve would write, bound to the request, from
		// team-lead, but unsigned: alice takes it as forged, a denial.
		frame, err := approval.Response(approval.Request{ID: req.ID, Kind: approval.KindPermission, ToolName: req.ToolName,
			ToolUseID: req.ToolUseID, Input: req.Input, Frame: req.Frame}, approval.Decision{Approve: true})
		if err != nil {
			t.Fatal(err)
		}
		msg := mailbox.Message{From: "team-lead", Text: frame, Timestamp: mailbox.Timestamp(time.Now())}
		if err := mailbox.New(inbox, lockfile.Options{}).Append(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
		got := result(t, call)
		// Observed with 2.1.330: the teammate says so to its model.
		if !strings.Contains(got, "could not be verified") {
			t.Errorf("after the unsigned approval the model was told %q, want that the answer could not be verified", got)
		}
		if strings.Contains(got, "forged-"+tok) || exists(marker("marker-forged")) {
			t.Errorf("an unsigned approval ran the command (tool_result %q, marker-forged exists: %v)", got, exists(marker("marker-forged")))
		}
	})
}

func readLedInbox(t *testing.T, lt *ledTeam, name string) []inboxEntry {
	t.Helper()
	var entries []inboxEntry
	path := filepath.Join(lt.s.ConfigDir, "teams", lt.name, "inboxes", name+".json")
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil
	}
	readJSON(t, path, &entries)
	return entries
}
