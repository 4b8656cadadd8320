package teamfind

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

func noEnv(string) string { return "" }

// startTree starts "sh -c 'sleep & wait'": a lead (sh) with a child
// standing in for a command run inside Claude Code's session.
func startTree(t *testing.T) (lead, child int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 600 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The whole group: killing sh alone would leave its sleep running.
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	return cmd.Process.Pid, testutil.ChildPID(t, cmd.Process.Pid)
}

func TestInferInsideClaudeSession(t *testing.T) {
	root := testutil.Root(t)
	lead, child := startTree(t)
	testutil.ClaudeTeam(t, root, "session-aaaa1111", testutil.LeadFor(t, lead))
	_, other := testutil.LiveClaudeLead(t)
	testutil.ClaudeTeam(t, root, "session-bbbb2222", other)

	got, err := Infer(context.Background(), root, Caller{PID: child, Getenv: noEnv})
	if err != nil || got != "session-aaaa1111" {
		t.Fatalf("inside the session of session-aaaa1111: got %q, %v", got, err)
	}
	// From outside both sessions: ambiguous, and the error lists them.
	_, err = Infer(context.Background(), root, Caller{PID: os.Getpid(), Getenv: noEnv})
	if !IsAmbiguous(err) || !strings.Contains(err.Error(), "session-aaaa1111, session-bbbb2222") {
		t.Fatalf("outside: %v", err)
	}
}

func TestInferIgnoresDeadLead(t *testing.T) {
	root := testutil.Root(t)
	lead, child := startTree(t)
	l := testutil.LeadFor(t, lead)
	wrong := *l.ProcStart + "7" // the pid now names another process
	l.ProcStart = &wrong
	testutil.ClaudeTeam(t, root, "session-dead0001", l)
	testutil.ClaudeTeam(t, root, "other", testutil.DeadClaudeLead(t))
	_, err := Infer(context.Background(), root, Caller{PID: child, Getenv: noEnv})
	if !IsAmbiguous(err) {
		t.Fatalf("a dead lead's pid chose a team: %v", err)
	}
}

func TestInferNeverGuessesALoneTeam(t *testing.T) {
	root := testutil.Root(t)
	if _, err := Infer(context.Background(), root, Caller{PID: os.Getpid(), Getenv: noEnv}); !IsAmbiguous(err) || !strings.Contains(err.Error(), "name one, or create one") {
		t.Fatalf("no teams: %v", err)
	}
	teamtest.OnRoot(t, root, "solo", team.CreateOptions{})
	if _, err := Infer(context.Background(), root, Caller{PID: os.Getpid(), Getenv: noEnv}); !IsAmbiguous(err) || !strings.Contains(err.Error(), "solo") {
		t.Fatalf("a lone team: %v", err)
	}
}

// A keybinding pressed in Claude Code's pane runs outside Claude's
// process tree, with $TMUX_PANE naming Claude's pane.
func TestInferFromClaudesPane(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pane, err := srv.Run(ctx, "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "sh -c 'sleep 600 & wait'")
	if err != nil {
		t.Fatal(err)
	}
	panePID, _ := srv.PanePID(ctx, pane)
	var pp int
	for _, c := range panePID {
		pp = pp*10 + int(c-'0')
	}
	claude := testutil.ChildPID(t, pp) // Claude Code runs under the pane's process
	root := testutil.Root(t)
	testutil.ClaudeTeam(t, root, "session-cccc3333", testutil.LeadFor(t, claude))
	_, other := testutil.LiveClaudeLead(t)
	testutil.ClaudeTeam(t, root, "session-dddd4444", other)

	env := map[string]string{}
	for _, kv := range testutil.TmuxEnv(t, srv, pane) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	got, err := Infer(ctx, root, Caller{PID: os.Getpid(), Getenv: func(k string) string { return env[k] }})
	if err != nil || got != "session-cccc3333" {
		t.Fatalf("from Claude's pane: %q, %v", got, err)
	}
	if lp, err := LeadPane(ctx, srv, claude); err != nil || lp != pane {
		t.Fatalf("Claude's pane from its pid: %q, %v; want %s", lp, err, pane)
	}
	// Another pane of the same server names no session.
	env["TMUX_PANE"] = testutil.FirstPane(t, srv)
	if _, err := Infer(ctx, root, Caller{PID: os.Getpid(), Getenv: func(k string) string { return env[k] }}); !IsAmbiguous(err) {
		t.Fatalf("from another pane: %v", err)
	}
}
