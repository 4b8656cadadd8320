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

	"github.com/paneteam/paneteam/internal/core/resume"
	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// TestResumeReconnectsATeammateOnAnotherHost: outside tmux, a team on
// paneteam's private server has a reference teammate on a second host
// (spawn-pane --host). The server dies with the lead; the teammate's
// connection goes with its pane, and with it the teammate on the host. A
// message is sent while it is down; resume reconnects it, on the same
// host, in a pane of the team's server again: it answers the message,
// the resuming process leads, a second resume leaves it alone, and
// kill-pane then leaves nothing on either machine.
func TestResumeReconnectsATeammateOnAnotherHost(t *testing.T) {
	testutil.RequireTool(t, "sshfs")
	w := newRSWorld(t)
	host := sshhost.Start(t, sshhost.Options{Hide: []string{w.root}})
	runtime := testutil.ShortTempDir(t)
	w.vars = append(w.vars, "PANETEAM_SSH="+host.SSH(), "XDG_RUNTIME_DIR="+runtime)
	lead := leadProcess(t)
	crew := strings.TrimSpace(w.must(t, nil, "team-create", "crew", "--leader-pid", strconv.Itoa(lead.Process.Pid)))
	w.must(t, nil, "spawn-pane", "--team", crew, "--name", "echo", "--host", sshhost.Alias, "--", "paneteam", "teammate")

	inbox := filepath.Join(w.root, "teams", crew, "inboxes", "team-lead.json")
	answered := func(text string) func() bool {
		return func() bool {
			var msgs []mailbox.Message
			b, _ := os.ReadFile(inbox)
			json.Unmarshal(b, &msgs)
			for _, m := range msgs {
				if m.From == "echo" && strings.Contains(m.Text, text) {
					return true
				}
			}
			return false
		}
	}
	w.must(t, nil, "send", "--team", crew, "--to", "echo", "before the server died")
	testutil.Eventually(t, 30*time.Second, "echo's first answer", answered("before the server died"))
	agentID := w.config(t, crew).Member("echo").AgentID

	socket := w.config(t, crew).Paneteam.TmuxSocket
	srv := tmux.Server{Socket: socket}
	t.Cleanup(func() { exec.Command("tmux", "-S", socket, "kill-server").Run() })
	if _, err := srv.Run(context.Background(), "kill-server"); err != nil {
		t.Fatal(err)
	}
	lead.Process.Kill()
	lead.Wait()
	// The pane's ssh ends with the server, and the teammate with its
	// session on the host: nothing is left running there to answer.
	testutil.Eventually(t, 15*time.Second, "the teammate on the host to end with the local server", func() bool {
		got, err := host.Run(t, "ps -eo args | grep -c '^paneteam teammate'; true")
		return err == nil && strings.TrimSpace(got) == "0"
	})
	w.must(t, nil, "send", "--team", crew, "--to", "echo", "sent while you were down")

	if dry := w.must(t, nil, "resume", "--team", crew, "--dry-run"); !strings.Contains(dry, "crew/echo: would be") {
		t.Errorf("resume --dry-run says:\n%s\nwant echo to be reconnected", dry)
	}
	out, errs, code := w.run(t, nil, "resume", "--team", crew, "--json")
	var res resume.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("resume --json: exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	if len(res.Started) != 1 || res.Started[0].Name != "echo" || res.Started[0].How != resume.Reconnected ||
		res.Started[0].Backend != "tmux" || res.Started[0].PaneID == "" || res.Started[0].Error != "" {
		t.Fatalf("resume started %+v; want echo reconnected in a tmux pane\n%s", res.Started, errs)
	}
	testutil.Eventually(t, 30*time.Second, "echo's answer to the message sent while it was down", answered("sent while you were down"))
	if got := host.MustRun(t, "ps -eo args | grep -c '^paneteam teammate'; true"); strings.TrimSpace(got) != "1" {
		t.Errorf("teammates running on the host after resume: %s, want 1", got)
	}

	cfg := w.config(t, crew)
	m := cfg.Member("echo")
	if m == nil || m.AgentID != agentID || m.TmuxPaneID != res.Started[0].PaneID {
		t.Errorf("echo's row after resume: %+v; want agent %s in pane %s", m, agentID, res.Started[0].PaneID)
	}
	if cfg.Paneteam.TmuxSocket != socket {
		t.Errorf("the team moved to server %s, want its own %s again", cfg.Paneteam.TmuxSocket, socket)
	}
	if p, err := srv.PaneByID(context.Background(), m.TmuxPaneID); err != nil || p.Agent != agentID {
		t.Errorf("echo's pane %s on %s: %+v, %v", m.TmuxPaneID, socket, p, err)
	}
	if l := team.LeadOf(cfg); l.State != team.LeadAlive || l.PID != int64(os.Getpid()) {
		t.Errorf("the team's lead after resume: %+v; want this test's process (the parent of resume), alive", l)
	}
	if st := w.must(t, nil, "status", "--team", crew); !strings.Contains(st, "echo@"+sshhost.Alias) || strings.Contains(st, "dead") {
		t.Errorf("status after resume:\n%s", st)
	}
	if again := w.must(t, nil, "resume", "--team", crew); !strings.Contains(again, "crew/echo: still running, left alone") {
		t.Errorf("a second resume says:\n%s\nwant echo left alone", again)
	}

	// A reboot ends the lead's connection to the host (its ssh master
	// outlives the tmux server) and empties $XDG_RUNTIME_DIR, where the
	// lead keeps how it reached the host; the launch record stays. resume then says what
	// is gone and the two commands that start the teammate again, and
	// they do.
	if _, err := srv.Run(context.Background(), "kill-server"); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 15*time.Second, "the teammate on the host to end with the local server again", func() bool {
		got, err := host.Run(t, "ps -eo args | grep -c '^paneteam teammate'; true")
		return err == nil && strings.TrimSpace(got) == "0"
	})
	rebootLead(t, runtime)
	if err := os.RemoveAll(filepath.Join(runtime, "paneteam-remote")); err != nil {
		t.Fatal(err)
	}
	out, errs, code = w.run(t, nil, "resume", "--team", crew)
	kill := "paneteam kill-pane --team crew --name echo"
	again := "paneteam spawn-pane --team crew --name echo --host " + sshhost.Alias + " -- paneteam teammate"
	if code == 0 || !strings.Contains(errs, "this machine's record of its connection") || !strings.Contains(errs, kill) || !strings.Contains(errs, again) {
		t.Errorf("resume after the lead's connection records were lost: exit %d\n%s\n%s\nwant a failure naming them and %q, %q", code, out, errs, kill, again)
	}
	w.must(t, nil, strings.Fields(kill)[1:]...)
	w.must(t, nil, strings.Fields(again)[1:]...)
	w.must(t, nil, "send", "--team", crew, "--to", "echo", "after the reboot")
	testutil.Eventually(t, 30*time.Second, "echo's answer after it was started again", answered("after the reboot"))

	pids := remotePIDs(t, runtime)
	w.must(t, nil, "kill-pane", "--team", crew, "--name", "echo")
	nothingLeft(t, host, runtime, pids)
}

// rebootLead ends the processes a reboot of the lead's machine would:
// those on the connections under runtime (the ssh master of each host).
func rebootLead(t *testing.T, runtime string) {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), runtime) {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	testutil.Eventually(t, 10*time.Second, "the lead's connections to end", func() bool {
		return !strings.Contains(leftOnLead(runtime, nil), "/proc/")
	})
}
