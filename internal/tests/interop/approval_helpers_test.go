package interop

import (
	"encoding/json"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/claudetest"
)

// ledTeam is a team a person leads from paneteam: no Claude Code lead, a
// shell pane in a private tmux server (claudetest.StartHost) where
// paneteam runs as the lead, and paneteam's state folder (the teammates'
// signing keys) in a temporary folder.
type ledTeam struct {
	s         *claudetest.Session
	api       *claudetest.API
	name      string
	state     string
	extraArgs []string // after the claude binary (e.g. --debug)
}

func newLedTeam(t *testing.T, name string) *ledTeam {
	t.Helper()
	return newLedTeamEnv(t, name, nil)
}

// newLedTeamEnv is newLedTeam with more KEY=VALUE pairs in the person's
// environment (the tmux server's and paneteam's): an agent CLI's folder
// first on PATH, its key.
func newLedTeamEnv(t *testing.T, name string, env []string) *ledTeam {
	t.Helper()
	api := claudetest.NewAPI(t)
	s := claudetest.StartHost(t, claudetest.Options{API: api, Env: env})
	lt := &ledTeam{s: s, api: api, state: t.TempDir()}
	lt.name = strings.TrimSpace(lt.ok(t, "team-create", name))
	return lt
}

// run runs paneteam as the person would in the lead's pane: in the
// project folder, inside the tmux server, with Claude's environment.
func (lt *ledTeam) run(t *testing.T, extra []string, args ...string) (string, string, int) {
	t.Helper()
	env := append([]string{"PANETEAM_STATE_DIR=" + lt.state}, lt.s.TmuxEnv(t)...)
	return ptWith(t, lt.s, append(env, extra...), args...)
}

func (lt *ledTeam) ok(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := lt.run(t, nil, args...)
	if code != 0 {
		t.Fatalf("paneteam %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// spawnClaude starts a real Claude Code teammate in permission mode mode,
// its prompt its first turn, and ends it when the test ends.
func (lt *ledTeam) spawnClaude(t *testing.T, name, mode, prompt string, flags ...string) {
	t.Helper()
	endLedMember(t, lt, name)
	args := append([]string{"spawn-pane", "--team", lt.name, "--name", name, "--claude", "--permission-mode", mode,
		"--prompt", prompt}, flags...)
	lt.ok(t, append(append(args, "--", lt.s.Bin), lt.extraArgs...)...)
}

// endLedMember kills name's pane (and whatever still runs in it) when the
// test ends.
func endLedMember(t *testing.T, lt *ledTeam, name string) {
	t.Cleanup(func() {
		pane := lt.pane(name)
		var pid int
		if pane != "" {
			if out, err := lt.s.Tmux.Run(t.Context(), "display-message", "-p", "-t", pane, "#{pane_pid}"); err == nil {
				pid = atoiOr(strings.TrimSpace(out))
			}
		}
		lt.run(t, nil, "kill-pane", "--team", lt.name, "--name", name)
		killIfAlive(pid)
	})
}

func (lt *ledTeam) pane(name string) string {
	c, err := lt.s.Config()
	if err != nil {
		return ""
	}
	for _, m := range c.Members {
		if m.Name == name {
			return m.TmuxPaneID
		}
	}
	return ""
}

// pendingRequest is one line of `paneteam requests --json`.
type pendingRequest struct {
	ID          string          `json:"id"`
	Kind        string          `json:"kind"`
	From        string          `json:"teammate"`
	ToolName    string          `json:"tool_name"`
	ToolUseID   string          `json:"tool_use_id"`
	Input       json.RawMessage `json:"input"`
	Suggestions json.RawMessage `json:"permission_suggestions"`
	PlanContent string          `json:"plan_content"`
	Frame       json.RawMessage `json:"frame"`
	Subject     string          `json:"subject"`
}

func (lt *ledTeam) requests(t *testing.T) []pendingRequest {
	t.Helper()
	var rs []pendingRequest
	out := lt.ok(t, "requests", "--team", lt.name, "--json")
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("requests --json: %v\n%s", err, out)
	}
	return rs
}

// waitRequest waits until `paneteam requests` lists a request of kind
// from name that match accepts, and returns it.
func (lt *ledTeam) waitRequest(t *testing.T, name, kind string, match func(pendingRequest) bool) pendingRequest {
	t.Helper()
	var got pendingRequest
	lt.s.Wait(t, wait, "paneteam requests to list a "+kind+" request from "+name, func() bool {
		for _, r := range lt.requests(t) {
			if r.From == name && r.Kind == kind && (match == nil || match(r)) {
				got = r
				return true
			}
		}
		return false
	})
	return got
}

func atoiOr(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// killIfAlive ends pid (a teammate's claude) if it still runs.
func killIfAlive(pid int) {
	if pid > 0 && syscall.Kill(pid, 0) == nil && !isZombie(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
