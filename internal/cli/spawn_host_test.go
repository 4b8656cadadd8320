package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
)

// spWithHost is spInside with a second host (sshhost) the lead reaches
// through PANETEAM_SSH, the lead's team root hidden from it, and the
// lead's records of remote teammates under runtime, the test's own.
// opts, when set, adds to the host's options.
func spWithHost(t *testing.T, opts func(root string, o *sshhost.Options)) (s *spTeam, host *sshhost.Host, runtime string) {
	t.Helper()
	testutil.RequireTool(t, "sshfs")
	s = spInside(t)
	o := sshhost.Options{Hide: []string{s.root}}
	if opts != nil {
		opts(s.root, &o)
	}
	host = sshhost.Start(t, o)
	runtime = testutil.ShortTempDir(t)
	s.vars = append(s.vars, "PANETEAM_SSH="+host.SSH(), "XDG_RUNTIME_DIR="+runtime)
	return s, host, runtime
}

// A reference teammate on a second host, started with spawn-pane --host
// in a pane of the lead's tmux: the lead's message reaches it and its
// answer reaches the lead; kill-pane then leaves nothing on either
// machine (no mount, no process, no connection).
func TestSpawnPaneOnAnotherHost(t *testing.T) {
	s, host, runtime := spWithHost(t, nil)

	out, errOut, code := s.run("spawn-pane", "--team", s.name, "--name", "echo", "--host", sshhost.Alias, "--json", "--", "paneteam", "teammate")
	if code != 0 {
		t.Fatalf("spawn-pane --host: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "copying paneteam") {
		t.Errorf("spawn-pane did not say it copies paneteam to the host: %q", errOut)
	}
	var res spawnResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.PaneID == "" {
		t.Fatalf("spawn-pane --json: %v %q", err, out)
	}
	if got := host.MustRun(t, "hostname"); strings.TrimSpace(got) != "paneteam-remote" {
		t.Fatalf("not the second host: %q", got)
	}

	if st := s.mustRun("status", "--team", s.name); !strings.Contains(st, "echo@"+sshhost.Alias) {
		t.Errorf("status does not show the teammate's host:\n%s", st)
	}
	if st := s.mustRun("status", "--team", s.name, "--json"); !strings.Contains(st, `"host":"`+sshhost.Alias+`"`) && !strings.Contains(st, `"host": "`+sshhost.Alias+`"`) {
		t.Errorf("status --json does not give the teammate's host:\n%s", st)
	}
	s.mustRun("send", "--team", s.name, "--to", "echo", "hello from the lead")
	inbox := filepath.Join(s.root, "teams", s.name, "inboxes", "team-lead.json")
	testutil.Eventually(t, 60*time.Second, "the remote teammate's answer in the lead's inbox; its pane:\n"+s.capture(res.PaneID), func() bool {
		b, _ := os.ReadFile(inbox)
		var msgs []mailbox.Message
		json.Unmarshal(b, &msgs)
		for _, m := range msgs {
			if m.From == "echo" && strings.Contains(m.Text, "hello from the lead") {
				return true
			}
		}
		return false
	})
	if ps := host.MustRun(t, "ps -eo args | grep -c '^paneteam teammate'"); strings.TrimSpace(ps) != "1" {
		t.Errorf("the teammate does not run on the host: %s", ps)
	}

	pids := remotePIDs(t, runtime)
	s.mustRun("kill-pane", "--team", s.name, "--name", "echo")
	nothingLeft(t, host, runtime, pids)
}

// nothingLeft waits until neither machine has anything of a remote
// teammate: no mount, no process, no connection, no record.
func nothingLeft(t *testing.T, host *sshhost.Host, runtime string, pids []int) {
	t.Helper()
	testutil.Eventually(t, 15*time.Second, "nothing of the teammates left on the host", func() bool {
		got, err := host.Run(t, `grep fuse /proc/mounts; ps -eo args | grep -E '^(paneteam|sshfs|/root/.cache)' | grep -v grep; find /root/.claude -mindepth 1 2>/dev/null; true`)
		return err == nil && strings.TrimSpace(got) == ""
	})
	testutil.Eventually(t, 10*time.Second, "nothing of the teammates left on the lead", func() bool {
		return leftOnLead(runtime, pids) == ""
	})
}

// remotePIDs are the lead's processes serving the mounts of the remote
// teammates recorded under runtime (sftp-server and ssh of each).
func remotePIDs(t *testing.T, runtime string) []int {
	t.Helper()
	var pids []int
	recs, _ := filepath.Glob(filepath.Join(runtime, "paneteam-remote", "*", "*.json"))
	for _, r := range recs {
		var st struct{ ServerPID, SSHPID int }
		b, _ := os.ReadFile(r)
		if err := json.Unmarshal(b, &st); err != nil || st.ServerPID == 0 {
			t.Fatalf("the lead's record %s: %v %s", r, err, b)
		}
		pids = append(pids, st.ServerPID, st.SSHPID)
	}
	return pids
}

// leftOnLead lists those processes still running, any process on the
// connections under runtime (so other tests' are not counted), and
// records left there.
func leftOnLead(runtime string, pids []int) string {
	var left []string
	for _, pid := range pids {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && (bytes.Contains(b, []byte("sftp")) || bytes.Contains(b, []byte("ssh"))) {
			left = append(left, fmt.Sprint(pid))
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(runtime)) {
			left = append(left, p)
		}
	}
	recs, _ := filepath.Glob(filepath.Join(runtime, "paneteam-remote", "*", "*"))
	return strings.Join(append(left, recs...), " ")
}

// shutdown asks a remote teammate to leave and it does; cleanup --force
// ends the last one with the team. Both leave nothing on either machine.
func TestShutdownAndCleanupOnAnotherHost(t *testing.T) {
	s, host, runtime := spWithHost(t, nil)
	for _, name := range []string{"ann", "ben"} {
		s.mustRun("spawn-pane", "--team", s.name, "--name", name, "--host", sshhost.Alias, "--", "paneteam", "teammate")
	}
	if got := host.MustRun(t, "grep -c fuse.sshfs /proc/mounts"); strings.TrimSpace(got) != "2" {
		t.Fatalf("two teammates, not two mounts on the host: %s", got)
	}
	pids := remotePIDs(t, runtime)
	s.mustRun("shutdown", "--team", s.name, "--timeout", "60s", "ann")
	if got := host.MustRun(t, "grep -c fuse.sshfs /proc/mounts; true"); strings.TrimSpace(got) != "1" {
		t.Errorf("after ann's shutdown, mounts on the host: %s", got)
	}
	s.mustRun("cleanup", "--team", s.name, "--force")
	nothingLeft(t, host, runtime, pids)
	if _, err := os.Stat(filepath.Join(s.root, "teams", s.name)); err == nil {
		t.Error("the team is still there after cleanup")
	}
}

func (s *spTeam) capture(pane string) string {
	out, _ := s.srv.Run(context.Background(), "capture-pane", "-p", "-t", pane)
	return out
}
