package spawn_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// record is name's launch record in the world's state folder, checked
// to be a 0600 file.
func (w *world) record(name string) *launches.Record {
	w.t.Helper()
	store := launches.Open(w.vars["PANETEAM_STATE_DIR"])
	rec, err := store.Read(w.team.Root, w.team.Name, name)
	if err != nil {
		w.t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(store.Dir, "*.json"))
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Mode().Perm() != 0o600 {
			w.t.Errorf("%s: %v, want a 0600 file", f, err)
		}
	}
	return rec
}

// TestLaunchRecordedWhereItRuns: a teammate started in its worktree is
// recorded with the command its pane runs, the worktree as its folder,
// its pane and process; one whose start failed leaves no record.
func TestLaunchRecordedWhereItRuns(t *testing.T) {
	w := newWorld(t)
	repo := testutil.GitRepo(t)
	r := w.request("alice", repo, spawn.Command{Argv: []string{"sleep", "600"}})
	r.Worktree = true
	res, err := spawn.Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	m := w.config().Member("alice")
	rec := w.record("alice")
	if rec == nil {
		t.Fatal("no launch record for alice")
	}
	if rec.Via != launches.ViaSpawnPane || rec.Program != "sleep" || !slices.Equal(rec.Args, []string{"600"}) || rec.CLI != "" {
		t.Errorf("record %+v, want spawn-pane running sleep 600, no CLI", rec)
	}
	if rec.Cwd != m.Cwd || !strings.Contains(rec.Cwd, ".paneteam/worktrees") {
		t.Errorf("record's folder %q, want the worktree alice runs in (%q)", rec.Cwd, m.Cwd)
	}
	if rec.Pane != res.PaneID || rec.Backend != "tmux" || rec.Team != "crew" || rec.Agent != "alice" {
		t.Errorf("record %+v, want pane %s on tmux", rec, res.PaneID)
	}
	pane, err := w.srv.Display(context.Background(), res.PaneID, "pane_pid")
	if err != nil || rec.PID == 0 || pane[0] != strconv.Itoa(rec.PID) {
		t.Errorf("record's pid %d, pane's %q (%v)", rec.PID, pane, err)
	}
	// Its process and server as paneteam made them, which resume
	// believes over the row in config.json.
	if start, err := proc.StartTime(rec.PID); err != nil || rec.PIDStart != start {
		t.Errorf("record's pid start %q, the process's %q (%v)", rec.PIDStart, start, err)
	}
	if sock, _ := w.srv.SocketPath(); rec.TmuxSocket == "" || rec.TmuxSocket != sock {
		t.Errorf("record's tmux socket %q, want the pane's server %q", rec.TmuxSocket, sock)
	}

	bad := w.request("bob", t.TempDir(), spawn.Command{Argv: []string{"sh", "-c", "exit 3"}})
	if _, err := spawn.Run(context.Background(), bad); err == nil {
		t.Fatal("a command that exits at once was started")
	}
	if rec := w.record("bob"); rec != nil {
		t.Errorf("a failed start left a record: %+v", rec)
	}
}

// TestClaudeTeammateRecordedWithItsSession: a Claude Code teammate gets a
// session id of its own on its command line, the same one is recorded,
// and its member says it runs claude; the person's own --resume is left
// alone, with no second session id.
func TestClaudeTeammateRecordedWithItsSession(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	bin, args := filepath.Join(dir, "claude"), filepath.Join(dir, "args")
	testutil.WriteExecutable(t, bin, []byte("#!/bin/sh\necho \"$@\" >> "+args+"\nexec sleep 600\n"))
	if _, err := spawn.Run(context.Background(), w.request("alice", dir, &spawn.Claude{Command: []string{bin}, Version: claudeversion.Tested})); err != nil {
		t.Fatal(err)
	}
	rec := w.record("alice")
	if rec == nil || rec.CLI != "claude" || len(rec.SessionID) != 36 || rec.Program != bin {
		t.Fatalf("record %+v, want claude with a session id", rec)
	}
	var line string
	testutil.Eventually(t, 5*time.Second, "claude to be started", func() bool {
		b, _ := os.ReadFile(args)
		line = string(b)
		return line != ""
	})
	if !strings.Contains(line, "--session-id "+rec.SessionID) {
		t.Errorf("claude was started with %q, not the recorded session %s", line, rec.SessionID)
	}
	if m := w.config().Member("alice"); m.Paneteam == nil || m.Paneteam.CLI != "claude" {
		t.Errorf("member's paneteam record %+v, want cli claude", m.Paneteam)
	}

	if _, err := spawn.Run(context.Background(), w.request("bob", dir, &spawn.Claude{Command: []string{bin, "--resume", "0b6f-own"}, Version: claudeversion.Tested})); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "bob's claude to be started", func() bool {
		b, _ := os.ReadFile(args)
		line = string(b)
		return strings.Count(line, "\n") == 2
	})
	if last := strings.Split(strings.TrimSpace(line), "\n")[1]; strings.Contains(last, "--session-id") {
		t.Errorf("claude --resume was given a session id too: %q", last)
	}
	if rec := w.record("bob"); rec == nil || rec.SessionID != "0b6f-own" {
		t.Errorf("record %+v, want the session the person resumes", rec)
	}
}

// TestUnwritableRecordIsAWarning: a state folder that cannot take the
// record costs a warning, never the teammate.
func TestUnwritableRecordIsAWarning(t *testing.T) {
	w := newWorld(t)
	state := filepath.Join(t.TempDir(), "state")
	os.WriteFile(state, nil, 0o600) // a file where the folder should be
	w.vars["PANETEAM_STATE_DIR"] = state
	var warned []string
	r := w.request("alice", t.TempDir(), spawn.Command{Argv: []string{"sleep", "600"}})
	r.Caller.Warn = func(f string, a ...any) { warned = append(warned, f) }
	if _, err := spawn.Run(context.Background(), r); err != nil {
		t.Fatalf("the spawn failed for its record: %v", err)
	}
	if w.config().Member("alice") == nil || len(warned) != 1 || !strings.Contains(warned[0], "launch was not recorded") {
		t.Errorf("warnings %q, want one about the record", warned)
	}
}
