package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// launchRecords reads the launch records in state as a person would find
// them, by teammate, each checked to be a 0600 file in a 0700 folder.
func launchRecords(t *testing.T, state string) map[string]launches.Record {
	t.Helper()
	dir := filepath.Join(state, "launches")
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("launch records' folder: %v, want a 0700 folder", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	out := map[string]launches.Record{}
	for _, f := range files {
		if st, _ := os.Stat(f); st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", f, st.Mode().Perm())
		}
		b, _ := os.ReadFile(f)
		var r launches.Record
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[r.Agent] = r
	}
	return out
}

// TestSpawnPaneRecordsEachLaunch: a command, a Claude Code teammate and
// an agent CLI started by spawn-pane each leave a launch record naming
// what its pane runs, the folder it runs in, its pane and (for Claude
// Code) the session it was started with; status says which CLI each
// runs; a teammate that leaves takes its record along, and deleting the
// team takes the rest.
func TestSpawnPaneRecordsEachLaunch(t *testing.T) {
	s := spInside(t)
	state, bin, work := t.TempDir(), t.TempDir(), t.TempDir()
	testutil.WriteExecutable(t, filepath.Join(bin, "codex"), []byte("#!/bin/sh\nexec sleep 600\n"))
	s.vars = append(s.vars, "PANETEAM_STATE_DIR="+state, "PATH="+bin+":"+os.Getenv("PATH"))
	claude, argvFile, _ := fakeClaude(t, t.TempDir(), filepath.Join(s.root, "teams", "crew", "inboxes", "alice.json"))

	pane := map[string]string{}
	for name, args := range map[string][]string{
		"tests": {"--cwd", work, "--", "sleep", "600"},
		"alice": {"--cwd", work, "--claude", "--", claude},
		"coder": {"--cwd", work, "--agent", "codex"},
	} {
		var res spawnResult
		out := s.mustRun(append([]string{"spawn-pane", "--team", "crew", "--name", name, "--json"}, args...)...)
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		pane[name] = res.PaneID
	}

	recs := launchRecords(t, state)
	for name, want := range map[string]struct{ program, cli string }{
		"tests": {"sleep", ""}, "alice": {claude, "claude"}, "coder": {testutil.Binary(t), "codex"},
	} {
		r, ok := recs[name]
		if !ok {
			t.Errorf("no launch record for %s (records: %v)", name, recs)
			continue
		}
		if r.Program != want.program || r.CLI != want.cli || r.Via != launches.ViaSpawnPane {
			t.Errorf("%s: program %q cli %q via %q; want %q, %q, spawn-pane", name, r.Program, r.CLI, r.Via, want.program, want.cli)
		}
		if r.Cwd != work || r.Pane != pane[name] || r.Backend != "tmux" || r.PID == 0 || r.Root != s.root || r.Team != "crew" {
			t.Errorf("%s: %+v; want folder %s, tmux pane %s, a pid", name, r, work, pane[name])
		}
	}
	// Where each CLI keeps its records (its usage among them): Claude's
	// config folder, the agent CLI's run folder; none for a plain command.
	if got := recs["alice"].ConfigDir; got != s.root {
		t.Errorf("alice's config folder %q, want the team's root %s (its CLAUDE_CONFIG_DIR)", got, s.root)
	}
	if got, want := recs["coder"].ConfigDir, filepath.Join(s.root, "teams", "crew", "agents", "coder"); got != want {
		t.Errorf("coder's config folder %q, want its run folder %s", got, want)
	}
	if got := recs["tests"].ConfigDir; got != "" {
		t.Errorf("a plain command's config folder %q, want none", got)
	}
	if a := recs["coder"].Args; len(a) < 3 || !slices.Equal(a[:3], []string{"teammate", "--agent", "codex"}) {
		t.Errorf("coder's pane runs %q, want paneteam teammate --agent codex", a)
	}
	argv := spWaitLines(t, argvFile, 1)
	if sid := argAfter(argv, "--session-id"); sid == "" || recs["alice"].SessionID != sid {
		t.Errorf("alice was started with --session-id %q, its record says %q", sid, recs["alice"].SessionID)
	}

	var status []struct {
		Members []struct {
			Name string  `json:"name"`
			CLI  *string `json:"cli"`
		} `json:"members"`
	}
	if err := json.Unmarshal([]byte(s.mustRun("status", "--team", "crew", "--json")), &status); err != nil || len(status) != 1 {
		t.Fatalf("status --json: %v", err)
	}
	got := map[string]string{}
	for _, m := range status[0].Members {
		if m.CLI != nil {
			got[m.Name] = *m.CLI
		}
	}
	if want := map[string]string{"alice": "claude", "coder": "codex"}; !maps.Equal(got, want) {
		t.Errorf("status --json cli: %v, want %v (none for the plain command, nor for paneteam's lead)", got, want)
	}
	text := s.mustRun("status", "--team", "crew")
	for _, w := range []string{"codex (paneteam)", "claude (paneteam)"} {
		if !strings.Contains(text, w) {
			t.Errorf("status does not say %q:\n%s", w, text)
		}
	}

	s.mustRun("kill-pane", "--team", "crew", "--name", "coder")
	if _, ok := launchRecords(t, state)["coder"]; ok {
		t.Error("coder left the team, its launch record stays")
	}
	s.mustRun("cleanup", "--team", "crew", "--force")
	if recs := launchRecords(t, state); len(recs) != 0 {
		t.Errorf("the team is deleted, its launch records stay: %v", recs)
	}
}
