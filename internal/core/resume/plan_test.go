package resume

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/launches"
)

// TestClaudePlanContinuesOnlyASessionItCanFind: a Claude Code teammate
// whose transcript is where Claude Code keeps it is resumed with
// --resume in place of --session-id, everything else as it ran; without
// the transcript it starts in a new session and is told so; a command
// line that chose its own session starts again as it ran.
func TestClaudePlanContinuesOnlyASessionItCanFind(t *testing.T) {
	root, cwd := t.TempDir(), "/src/my project"
	sid := "cd56e7a8-c486-422a-919d-099925ebf76e"
	rec := launches.Record{Root: root, Team: "crew", Agent: "alice", CLI: "claude", Program: "/bin/claude", Cwd: cwd, SessionID: sid,
		Args: []string{"--agent-id", "alice@crew", "--session-id", sid, "--model", "sonnet"},
		Env:  []string{"PANETEAM_AGENT=alice", "CLAUDE_CONFIG_DIR=" + root}}

	p := planFor(rec, nil)
	if p.how != Fresh || p.session == sid || p.session == "" || !slices.Contains(p.argv, p.session) || !strings.Contains(p.tell, "could not be continued") {
		t.Errorf("no transcript: %+v; want a fresh session, told so", p)
	}

	file := filepath.Join(root, "projects", "-src-my-project", sid+".jsonl")
	os.MkdirAll(filepath.Dir(file), 0o700)
	os.WriteFile(file, []byte("{}\n"), 0o600)
	p = planFor(rec, nil)
	want := []string{"/bin/claude", "--agent-id", "alice@crew", "--resume", sid, "--model", "sonnet"}
	if p.how != Continued || !slices.Equal(p.argv, want) || p.tell != "" || p.earlier != file || !slices.Equal(p.env, rec.Env) {
		t.Errorf("with its transcript: %+v; want %q, continued, its environment", p, want)
	}

	own := rec
	own.Args = []string{"--agent-id", "alice@crew", "--resume", sid}
	p = planFor(own, nil)
	if p.how != Restarted || !slices.Equal(p.argv[1:], own.Args) {
		t.Errorf("its own --resume: %+v; want started again as it ran", p)
	}
}

// TestPlanForOtherTeammates: a command starts again as it ran; an agent
// CLI starts fresh and is told so; a record without its environment
// still gives the teammate its team, name and root.
func TestPlanForOtherTeammates(t *testing.T) {
	cmd := launches.Record{Root: "/r", Team: "crew", Agent: "tests", Program: "sleep", Args: []string{"600"}}
	p := planFor(cmd, nil)
	if p.how != Restarted || !slices.Equal(p.argv, []string{"sleep", "600"}) || p.tell != "" ||
		!slices.Equal(p.env, []string{"PANETEAM_TEAM=crew", "PANETEAM_AGENT=tests", "PANETEAM_ROOT=/r"}) {
		t.Errorf("a command: %+v", p)
	}
	codex := launches.Record{Root: "/r", Team: "crew", Agent: "coder", CLI: "codex", Program: "paneteam", Args: []string{"teammate", "--agent", "codex"}}
	if p := planFor(codex, nil); p.how != Fresh || !strings.Contains(p.tell, "fresh codex session") {
		t.Errorf("an agent CLI: %+v", p)
	}
}

// TestAgentPlanContinuesTheSessionItsHookNamed: an agent CLI teammate's
// wrapper runs again told which session of its CLI to continue (in place
// of one a resume told it before); with none known, or with a command
// line that is not the wrapper's, it starts fresh, told so and why.
func TestAgentPlanContinuesTheSessionItsHookNamed(t *testing.T) {
	rec := launches.Record{Root: "/r", Team: "crew", Agent: "coder", CLI: "codex", Program: "/bin/paneteam",
		Args: []string{"teammate", "--agent", "codex", "--prompt", "Take task 1.", "--cli-session", "old"}, Env: []string{"PANETEAM_AGENT=coder"}}
	const sid = "019a1b2c-0d4e-7f60-8a9b-0c1d2e3f4a5b"
	known := func(r launches.Record) (string, string) {
		if r.Agent != "coder" {
			t.Errorf("asked for the session of %q", r.Agent)
		}
		return sid, ""
	}
	p := planFor(rec, known)
	want := []string{"/bin/paneteam", "teammate", "--cli-session", sid, "--agent", "codex", "--prompt", "Take task 1."}
	if p.how != Continued || p.session != sid || !slices.Equal(p.argv, want) || p.tell != "" || !slices.Equal(p.env, rec.Env) {
		t.Errorf("a session known: %+v; want %q, continued", p, want)
	}

	none := func(launches.Record) (string, string) { return "", "it never ended a turn" }
	p = planFor(rec, none)
	if p.how != Fresh || slices.Contains(p.argv, "--cli-session") || !strings.Contains(p.note, "it never ended a turn") ||
		!strings.Contains(p.tell, "fresh codex session") {
		t.Errorf("no session known: %+v; want fresh, without the old session, told so and why", p)
	}

	own := rec
	own.Args = []string{"--resume", "x"}
	if p := planFor(own, known); p.how != Fresh || !strings.Contains(p.note, "not paneteam's agent teammate") {
		t.Errorf("not the wrapper: %+v; want fresh", p)
	}
}
