package router

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
)

// TestResumeOnlyWhatCanGoOn: a resumed lead's teammate goes on with its
// earlier session only from the same folder, with the transcript on
// disk and the earlier process gone; Claude's own session flags win, and
// a record of another CLI or with no session is no comeback.
func TestResumeOnlyWhatCanGoOn(t *testing.T) {
	config := t.TempDir()
	dir := filepath.Join(config, "projects", "-src-app")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "s-1.jsonl"), []byte("{}\n"), 0o600)
	rec := &launches.Record{CLI: "claude", SessionID: "s-1", Cwd: "/src/app", PID: 42, Started: "2026-01-01T10:00:00Z"}
	lead := time.Date(2026, 1, 1, 11, 0, 0, 0, time.UTC) // the resumed lead claimed its team
	dead := func(int) bool { return false }
	args := []string{"--agent-id", "helper@t", "--agent-name", "helper"}

	if c := Resume(args, rec, "/src/app", config, lead, dead); c.Session != "s-1" {
		t.Errorf("a teammate that can go on: %+v, want session s-1", c)
	}
	for _, tc := range []struct {
		what  string
		args  []string
		rec   *launches.Record
		cwd   string
		alive bool
		why   string // "" for no comeback at all
	}{
		{what: "no record", args: args, cwd: "/src/app"},
		{what: "a Codex teammate", args: args, rec: &launches.Record{CLI: "codex", SessionID: "s-1", Cwd: "/src/app"}, cwd: "/src/app"},
		{what: "no session", args: args, rec: &launches.Record{CLI: "claude", Cwd: "/src/app"}, cwd: "/src/app"},
		{what: "Claude's own --session-id", args: append(args, "--session-id", "x"), rec: rec, cwd: "/src/app"},
		{what: "Claude's own --resume", args: append(args, "--resume", "x"), rec: rec, cwd: "/src/app"},
		{what: "this lead's own, stopped and started again", args: args, cwd: "/src/app",
			rec: &launches.Record{CLI: "claude", SessionID: "s-1", Cwd: "/src/app", Started: "2026-01-01T11:30:00Z"}},
		{what: "another folder", args: args, rec: rec, cwd: "/src/other", why: "ran in /src/app"},
		{what: "no transcript", args: args, rec: &launches.Record{CLI: "claude", SessionID: "s-2", Cwd: "/src/app"}, cwd: "/src/app", why: "no transcript"},
		{what: "still running", args: args, rec: rec, cwd: "/src/app", alive: true, why: "still runs (pid 42)"},
	} {
		c := Resume(tc.args, tc.rec, tc.cwd, config, lead, func(int) bool { return tc.alive })
		if c.Session != "" || (tc.why == "") != (c.Why == "") || !strings.Contains(c.Why, tc.why) {
			t.Errorf("%s: %+v, want a fresh start saying %q", tc.what, c, tc.why)
		}
	}
}

// TestResumeNoteNamesTheTeammates: the person is told which teammates the
// resumed session had and which of them start fresh.
func TestResumeNoteNamesTheTeammates(t *testing.T) {
	if n := ResumeNote("s", nil); n != "" {
		t.Errorf("a session with no teammates: %q, want no note", n)
	}
	n := ResumeNote("s-1", []launches.Record{{Agent: "coder", CLI: "codex"}, {Agent: "helper", CLI: "claude", SessionID: "x"}})
	if !strings.Contains(n, "(coder, helper)") || !strings.Contains(n, "coder start fresh") || strings.Contains(n, "helper start") {
		t.Errorf("note %q: want both named, coder starting fresh", n)
	}
}
