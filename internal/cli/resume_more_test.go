package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// What comes with resume besides starting teammates again: a team kept
// by cleanup while it can come back, --all, a Claude teammate started
// fresh.

// TestCleanupOrphansKeepsATeamThatCanComeBack: a team whose lead and
// panes died without a shutdown is shown as resumable by status (text
// and --json) and kept, with its teammate's untouched worktree, by
// 'cleanup --orphans' within --resume-grace; once the grace has passed
// it is reaped, the worktree with it.
func TestCleanupOrphansKeepsATeamThatCanComeBack(t *testing.T) {
	w := newRSWorld(t)
	lead := leadProcess(t)
	crew := strings.TrimSpace(w.must(t, nil, "team-create", "crew", "--leader-pid", strconv.Itoa(lead.Process.Pid)))
	repo := testutil.GitRepo(t)
	w.must(t, nil, "spawn-pane", "--team", crew, "--name", "builder", "--cwd", repo, "--worktree", "--", "sleep", "600")
	w.must(t, nil, "spawn-pane", "--team", crew, "--name", "plain", "--", "sleep", "600")
	cfg := w.config(t, crew)
	wt := cfg.Member("builder").WorktreePath
	if wt == "" {
		t.Fatal("builder got no worktree")
	}
	socket := cfg.Paneteam.TmuxSocket
	t.Cleanup(func() { exec.Command("tmux", "-S", socket, "kill-server").Run() })

	var st []struct {
		Resumable *struct {
			Members []string `json:"members"`
			Command string   `json:"command"`
		} `json:"resumable"`
	}
	if err := json.Unmarshal([]byte(w.must(t, nil, "status", "--team", crew, "--json")), &st); err != nil || len(st) != 1 {
		t.Fatalf("status --json: %v", err)
	}
	if st[0].Resumable != nil {
		t.Errorf("a live team is shown resumable: %+v", st[0].Resumable)
	}

	if _, err := (tmux.Server{Socket: socket}).Run(context.Background(), "kill-server"); err != nil {
		t.Fatal(err)
	}
	lead.Process.Kill()
	lead.Wait()

	if err := json.Unmarshal([]byte(w.must(t, nil, "status", "--team", crew, "--json")), &st); err != nil || len(st) != 1 {
		t.Fatalf("status --json: %v", err)
	}
	if r := st[0].Resumable; r == nil || strings.Join(r.Members, ",") != "builder,plain" || r.Command != "paneteam resume --team crew" {
		t.Errorf("status --json resumable: %+v; want builder and plain, and the command", r)
	}
	if text := w.must(t, nil, "status", "--team", crew); !strings.Contains(text, "resumable: its lead and teammates' panes went away; bring back builder, plain with: paneteam resume --team crew") {
		t.Errorf("status does not say the team can come back:\n%s", text)
	}

	if out := w.must(t, nil, "cleanup", "--orphans", "--dry-run"); !strings.Contains(out, "left alone: team crew (its lead process") ||
		!strings.Contains(out, "it can come back") {
		t.Errorf("cleanup --orphans --dry-run within the grace says:\n%s\nwant the team left alone, saying why", out)
	}
	var reap struct {
		Skipped []struct{ Team, Why string } `json:"skipped"`
	}
	out := w.must(t, nil, "cleanup", "--orphans", "--json")
	if err := json.Unmarshal([]byte(out), &reap); err != nil || len(reap.Skipped) != 1 || !strings.Contains(reap.Skipped[0].Why, "--resume-grace") {
		t.Errorf("cleanup --orphans --json within the grace: %s (%v); want crew skipped, naming --resume-grace", out, err)
	}
	if _, err := os.Stat(filepath.Join(w.root, "teams", crew, "config.json")); err != nil {
		t.Fatalf("cleanup --orphans within the grace removed the team: %v", err)
	}
	if _, err := os.Stat(wt); err != nil {
		t.Fatalf("cleanup --orphans within the grace removed builder's worktree: %v", err)
	}

	time.Sleep(1100 * time.Millisecond)
	w.must(t, nil, "cleanup", "--orphans", "--resume-grace", "1s")
	if _, err := os.Stat(filepath.Join(w.root, "teams", crew)); !os.IsNotExist(err) {
		t.Errorf("after its grace the team is still there: %v", err)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("after its grace builder's untouched worktree is still there: %v", err)
	}
}

// TestResumeAllBringsBackOnlyTeamsThatWentAwayLately: --all starts the
// teams whose lead and panes are gone and that changed within --within
// (here an in-process teammate whose host was killed with its lead),
// leaves a live team alone, and says when there is none.
func TestResumeAllBringsBackOnlyTeamsThatWentAwayLately(t *testing.T) {
	w := newRSWorld(t)
	live, gone := leadProcess(t), leadProcess(t)
	w.must(t, nil, "team-create", "live", "--leader-pid", strconv.Itoa(live.Process.Pid))
	w.must(t, nil, "team-create", "gone", "--leader-pid", strconv.Itoa(gone.Process.Pid))
	marks := filepath.Join(t.TempDir(), "marks")
	for _, tm := range []string{"live", "gone"} {
		w.must(t, nil, "spawn-pane", "--team", tm, "--name", "host", "--backend", "in-process", "--",
			"/bin/sh", "-c", `echo "started $PANETEAM_TEAM" >> "$0"; exec sleep 600`, marks)
	}
	t.Cleanup(func() {
		for _, tm := range []string{"live", "gone"} {
			w.run(t, nil, "kill-pane", "--team", tm, "--name", "host")
		}
	})
	testutil.Eventually(t, 10*time.Second, "both hosts to start", func() bool {
		return countIn(marks, "started live") == 1 && countIn(marks, "started gone") == 1
	})
	host := w.config(t, "gone").Member("host").Paneteam.PID
	if err := syscall.Kill(host, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	gone.Process.Kill()
	gone.Wait()
	testutil.Eventually(t, 10*time.Second, "gone's host to end", func() bool { return syscall.Kill(host, 0) != nil })

	time.Sleep(1100 * time.Millisecond)
	if out := w.must(t, nil, "resume", "--all", "--within", "1s"); !strings.Contains(out, "no team to resume") {
		t.Errorf("resume --all --within 1s, a second after the team changed:\n%s\nwant none", out)
	}
	dry := w.must(t, nil, "resume", "--all", "--dry-run")
	if !strings.Contains(dry, "gone/host: would be started again in in-process") || strings.Contains(dry, "live/") {
		t.Errorf("resume --all --dry-run says:\n%s\nwant gone's host and nothing of live", dry)
	}
	out := w.must(t, nil, "resume", "--all")
	if !strings.Contains(out, "gone/host: started again in in-process pane in-process") {
		t.Errorf("resume --all says:\n%s", out)
	}
	testutil.Eventually(t, 10*time.Second, "gone's host to start again", func() bool { return countIn(marks, "started gone") == 2 })
	if countIn(marks, "started live") != 1 {
		t.Error("resume --all started the live team's teammate again")
	}
	if l := team.LeadOf(w.config(t, "gone")); l.State != team.LeadAlive {
		t.Errorf("gone's lead after resume --all: %+v", l)
	}
}

// TestResumeStartsClaudeFreshWhenItRefusesTheSession: a Claude Code
// teammate whose release will not resume its session (a stand-in that
// exits at once given --resume, as Claude Code does for a session it
// cannot load) is started again in a new session; the first message in
// its inbox says its conversation could not be continued and where it
// is, and its launch record names the new session for the next resume.
func TestResumeStartsClaudeFreshWhenItRefusesTheSession(t *testing.T) {
	w := newRSWorld(t)
	lead := leadProcess(t)
	crew := strings.TrimSpace(w.must(t, nil, "team-create", "crew", "--leader-pid", strconv.Itoa(lead.Process.Pid)))
	dir := t.TempDir()
	claude, argvLog := filepath.Join(dir, "claude"), filepath.Join(dir, "argv")
	testutil.WriteExecutable(t, claude, []byte("#!/bin/sh\n"+
		"if [ \"$1\" = --version ]; then echo '2.1.330 (Claude Code)'; exit 0; fi\n"+
		"echo \"$*\" >> '"+argvLog+"'\n"+
		"for a in \"$@\"; do [ \"$a\" = --resume ] && { echo 'No conversation found with session ID'; exit 1; }; done\n"+
		"exec sleep 600\n"))
	w.must(t, nil, "spawn-pane", "--team", crew, "--name", "alice", "--claude", "--", claude)
	recs, _ := launches.Open(w.state).List(w.root, crew)
	if len(recs) != 1 || recs[0].SessionID == "" {
		t.Fatalf("launch records: %+v, want alice's with its session", recs)
	}
	old := recs[0].SessionID
	transcript := filepath.Join(w.root, "projects", "-work", old+".jsonl")
	os.MkdirAll(filepath.Dir(transcript), 0o700)
	os.WriteFile(transcript, []byte("{}\n"), 0o600)

	socket := w.config(t, crew).Paneteam.TmuxSocket
	t.Cleanup(func() { exec.Command("tmux", "-S", socket, "kill-server").Run() })
	exec.Command("tmux", "-S", socket, "kill-server").Run()
	lead.Process.Kill()
	lead.Wait()

	var res resume.Result
	if err := json.Unmarshal([]byte(w.must(t, nil, "resume", "--team", crew, "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Started) != 1 {
		t.Fatalf("resume started %+v", res.Started)
	}
	s := res.Started[0]
	if s.How != resume.Fresh || s.SessionID == nil || *s.SessionID == old || !strings.Contains(s.Note, "would not resume session "+old) || s.Error != "" {
		t.Errorf("alice: %+v; want started fresh in a new session, saying Claude Code would not resume %s", s, old)
	}
	b, _ := os.ReadFile(argvLog)
	runs := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(runs) != 3 || !strings.Contains(runs[1], "--resume "+old) || s.SessionID == nil || !strings.Contains(runs[2], "--session-id "+*s.SessionID) {
		t.Errorf("alice's claude ran as:\n%s\nwant its spawn, a --resume %s, then a new --session-id", b, old)
	}
	inbox := w.must(t, nil, "inbox", "--team", crew, "--name", "alice", "--json")
	if !strings.Contains(inbox, "could not be continued") || !strings.Contains(inbox, transcript) {
		t.Errorf("alice's inbox:\n%s\nwant a message saying her conversation is in %s", inbox, transcript)
	}
	recs, _ = launches.Open(w.state).List(w.root, crew)
	if len(recs) != 1 || s.SessionID == nil || recs[0].SessionID != *s.SessionID || recs[0].Pane != s.PaneID {
		t.Errorf("alice's launch record after resume: %+v; want her new session and pane", recs)
	}
}
