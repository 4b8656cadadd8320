package interop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// TestResumedClaudeTeammateKeepsItsConversation: in a team paneteam
// leads, a real Claude Code teammate (started by spawn-pane --claude,
// which gives it a session id of its own) loses its tmux server with
// the lead's pane. A signed message is sent to it while it is down. From
// outside tmux, 'paneteam resume' starts it again in a pane of a private
// server: the same session continued (--resume), so its next model
// request holds its earlier conversation and the message sent while it
// was down, believed as the lead's; the team has a live lead again. A
// wrapped program beside her starts again and gets what was sent to it
// while down; an in-process teammate, whose host outlived the server, is
// left alone; the task she owned is as it was.
func TestResumedClaudeTeammateKeepsItsConversation(t *testing.T) {
	lt := newLedTeam(t, "back")
	const prompt = "You are alice. Remember the codeword PELICAN."
	after := lt.api.LastSeq()
	// Not lt.spawnClaude: its clean-up asks the tmux server this test kills.
	lt.ok(t, "spawn-pane", "--team", lt.name, "--name", "alice", "--claude", "--permission-mode", "bypassPermissions",
		"--prompt", prompt, "--", lt.s.Bin)
	lt.api.WaitMessages(t, wait, after, prompt)
	endClaudeTeammate(t, lt.s, lt.name, "alice")
	pid, _ := claudeTeammate(t, lt.s, lt.name, "alice")
	// Beside her: a wrapped program, which writes what it is sent, and an
	// in-process teammate, whose host outlives the tmux server.
	echo := filepath.Join(t.TempDir(), "echo")
	lt.ok(t, "spawn-pane", "--team", lt.name, "--name", "echo", "--", testutil.Binary(t), "teammate", "--",
		"/bin/sh", "-c", `echo started >> "$0"; exec cat >> "$0"`, echo)
	lt.ok(t, "spawn-pane", "--team", lt.name, "--name", "bg", "--backend", "in-process", "--", "sleep", "600")
	lt.ok(t, "task", "create", "--team", lt.name, "--subject", "keep the codeword")
	lt.ok(t, "task", "update", "--team", lt.name, "1", "--owner", "alice", "--status", "in_progress")
	tasks := lt.ok(t, "task", "list", "--team", lt.name, "--json")

	var rec launches.Record
	recs, errs := launches.Open(lt.state).List(lt.s.ConfigDir, lt.name)
	for _, r := range recs {
		if r.Agent == "alice" {
			rec = r
		}
	}
	if rec.SessionID == "" {
		t.Fatalf("alice's launch record: %+v (%v), want its session id", recs, errs)
	}
	// Claude Code writes its transcript as the turn goes; the resume
	// needs it there.
	testutil.Eventually(t, wait, "alice's transcript", func() bool {
		found, _ := filepath.Glob(filepath.Join(lt.s.ConfigDir, "projects", "*", rec.SessionID+".jsonl"))
		return len(found) == 1
	})

	if _, err := lt.s.Tmux.Run(context.Background(), "kill-server"); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, "alice's claude to end with its tmux server", func() bool {
		return syscall.Kill(pid, 0) != nil || isZombie(pid)
	})

	outside := []string{"PANETEAM_STATE_DIR=" + lt.state, "TMUX_TMPDIR=" + testutil.ShortTempDir(t), "PANETEAM_TMUX_CONFIG=/dev/null"}
	t.Cleanup(func() { ptWith(t, lt.s, outside, "kill-pane", "--team", lt.name, "--name", "bg") })
	ptWith(t, lt.s, outside, "send", "--team", lt.name, "--to", "echo", "echo this after the restart")
	if out, errOut, code := ptWith(t, lt.s, outside, "send", "--team", lt.name, "--to", "alice",
		"While you were down the codeword changed to OSPREY."); code != 0 {
		t.Fatalf("send while down: exit %d\n%s%s", code, out, errOut)
	}

	after = lt.api.LastSeq()
	out, errOut, code := ptWith(t, lt.s, outside, "resume", "--team", lt.name, "--json")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", code, out, errOut)
	}
	var res struct {
		Started []struct {
			Name, How, Backend, PaneID string
			SessionID                  *string
		} `json:"started"`
		Running []string `json:"running"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("resume --json: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		_, c, err := team.Open(lt.s.ConfigDir, lt.name)
		if err == nil && c.Paneteam != nil && c.Paneteam.TmuxSocket != "" {
			exec.Command("tmux", "-S", c.Paneteam.TmuxSocket, "kill-server").Run()
		}
	})
	if len(res.Started) != 2 || res.Started[0].Name != "alice" || res.Started[0].How != "continued" || res.Started[0].Backend != "tmux" ||
		res.Started[0].SessionID == nil || *res.Started[0].SessionID != rec.SessionID || res.Started[1].Name != "echo" || res.Started[1].How != "restarted" {
		t.Fatalf("resume started %+v, want alice's session %s continued in tmux, and echo restarted", res.Started, rec.SessionID)
	}
	if strings.Join(res.Running, ",") != "bg" {
		t.Errorf("resume left running %q, want the in-process bg alone", res.Running)
	}
	testutil.Eventually(t, 10*time.Second, "echo to start again and get what was sent while down", func() bool {
		b, _ := os.ReadFile(echo)
		return strings.Count(string(b), "started") == 2 && strings.Contains(string(b), "echo this after the restart")
	})
	if got, _, _ := ptWith(t, lt.s, outside, "task", "list", "--team", lt.name, "--json"); got != tasks {
		t.Errorf("resume changed the tasks:\n%s\nwant\n%s", got, tasks)
	}

	got := lt.api.WaitMessages(t, wait, after, "OSPREY")
	text := got.MessagesText()
	if !strings.Contains(text, "PELICAN") {
		t.Errorf("alice's first request after resume does not hold her earlier conversation:\n%s", text)
	}
	if tail := got.TailText(); !strings.Contains(tail, `teammate_id="team-lead"`) || strings.Contains(tail, `verified="false"`) {
		t.Errorf("the message sent while down reached alice as:\n%s\nwant it from team-lead, believed", tail)
	}
	if sid := got.SessionID(); sid != rec.SessionID {
		t.Errorf("alice's request after resume is of session %q, want %q", sid, rec.SessionID)
	}

	_, c, err := team.Open(lt.s.ConfigDir, lt.name)
	if err != nil {
		t.Fatal(err)
	}
	if l := team.LeadOf(c); l.State != team.LeadAlive || l.PID != int64(os.Getpid()) {
		t.Errorf("the team's lead after resume: %+v, want this test's process, alive", l)
	}
	m := c.Member("alice")
	if m == nil || m.TmuxPaneID != res.Started[0].PaneID || m.Paneteam == nil || !m.Paneteam.Keyed {
		t.Fatalf("alice's row after resume: %+v, want pane %s, still keyed", m, res.Started[0].PaneID)
	}

	// Down a second time: the same session goes on again, holding both
	// earlier turns.
	testutil.Eventually(t, wait, "alice's transcript to hold OSPREY", func() bool {
		found, _ := filepath.Glob(filepath.Join(lt.s.ConfigDir, "projects", "*", rec.SessionID+".jsonl"))
		b, _ := os.ReadFile(found[0])
		return strings.Contains(string(b), "OSPREY")
	})
	time.Sleep(2 * time.Second) // the model's reply written after it
	if err := exec.Command("tmux", "-S", m.Paneteam.TmuxSocket, "kill-server").Run(); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, "alice's claude to end again", func() bool {
		pid, _ := findProc(lt.s.ConfigDir, "alice@"+lt.name)
		return pid == 0
	})
	ptWith(t, lt.s, outside, "send", "--team", lt.name, "--to", "alice", "Down again: now it is HERON.")
	after = lt.api.LastSeq()
	if out, errOut, code := ptWith(t, lt.s, outside, "resume", "--team", lt.name); code != 0 || !strings.Contains(out, "alice: its conversation continued") {
		t.Fatalf("second resume: exit %d\n%s%s", code, out, errOut)
	}
	again := lt.api.WaitMessages(t, wait, after, "HERON")
	if text := again.MessagesText(); !strings.Contains(text, "PELICAN") || !strings.Contains(text, "OSPREY") || again.SessionID() != rec.SessionID {
		t.Errorf("alice's request after a second resume (session %q):\n%s\nwant both earlier turns, session %s", again.SessionID(), text, rec.SessionID)
	}
}
