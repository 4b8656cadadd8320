package testutil

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
)

// Member is a config.json member row (testutil cannot import package
// team, whose own tests use testutil).
type Member = map[string]any

// ClaudeLead is a leadProcess as Claude Code writes it
// (docs/PROTOCOL.md §3). A nil ProcStart leaves the field out.
type ClaudeLead struct {
	PID       int
	PIDSpace  string
	ClaimedAt int64
	ProcStart *string
}

// LiveClaudeLead starts a process standing in for a Claude Code lead (a
// sleep, ended when the test ends) and returns it with the leadProcess
// Claude Code would write for it.
func LiveClaudeLead(t testing.TB) (*exec.Cmd, ClaudeLead) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, LeadFor(t, cmd.Process.Pid)
}

// LeadFor is the leadProcess Claude Code would write for pid, claimed now.
func LeadFor(t testing.TB, pid int) ClaudeLead {
	t.Helper()
	start, err := proc.StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	return ClaudeLead{PID: pid, PIDSpace: proc.PIDSpace(), ClaimedAt: time.Now().UnixMilli(), ProcStart: &start}
}

// DeadClaudeLead is the leadProcess of a Claude Code lead that has exited.
func DeadClaudeLead(t testing.TB) ClaudeLead {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l := LeadFor(t, cmd.Process.Pid)
	cmd.Process.Kill()
	cmd.Wait()
	return l
}

// ClaudeTeam writes a team the way Claude Code makes its session
// team (config.json with leadProcess and the lead row, inboxes and tasks
// folders) under root, with members after the lead, and returns the
// config's path. name must be plain ([a-z0-9-]).
func ClaudeTeam(t testing.TB, root, name string, lead ClaudeLead, members ...Member) string {
	t.Helper()
	dir := filepath.Join(root, "teams", name)
	for _, d := range []string{filepath.Join(dir, "inboxes"), filepath.Join(root, "tasks", name)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	lp := map[string]any{"pid": lead.PID, "pidSpace": lead.PIDSpace, "claimedAt": lead.ClaimedAt}
	if lead.ProcStart != nil {
		lp["procStart"] = *lead.ProcStart
	}
	id := "team-lead@" + name
	rows := []any{map[string]any{"agentId": id, "name": "team-lead", "agentType": "team-lead", "joinedAt": lead.ClaimedAt,
		"tmuxPaneId": "leader", "cwd": "/", "subscriptions": []any{}, "backendType": "in-process"}}
	for _, m := range members {
		row := map[string]any{"agentId": m["name"].(string) + "@" + name, "joinedAt": time.Now().UnixMilli(), "cwd": "/", "subscriptions": []any{}}
		for k, v := range m {
			row[k] = v
		}
		rows = append(rows, row)
	}
	cfg := map[string]any{"name": name, "createdAt": lead.ClaimedAt, "leadAgentId": id,
		"leadSessionId": "0b8c1d2e-0000-4000-8000-000000000000", "leadProcess": lp, "members": rows}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ClaudeInProcessTeammate is a member row as Claude Code writes it for a
// teammate its lead runs in its own process.
func ClaudeInProcessTeammate(name string) Member {
	return Member{"name": name, "color": "blue", "tmuxPaneId": "in-process", "backendType": "in-process"}
}

// ClaudePaneTeammate is a member row as Claude Code writes it for a
// teammate in a tmux pane of its own (no paneteam record).
func ClaudePaneTeammate(name, pane string) Member {
	return Member{"name": name, "color": "green", "tmuxPaneId": pane, "backendType": "tmux"}
}

// ChildPID waits for pid's first child and returns it.
func ChildPID(t testing.TB, pid int) int {
	t.Helper()
	var child int
	Eventually(t, 5*time.Second, "a child process", func() bool {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", strconv.Itoa(pid), "children"))
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return false
		}
		child, _ = strconv.Atoi(f[0])
		return child > 0
	})
	return child
}
