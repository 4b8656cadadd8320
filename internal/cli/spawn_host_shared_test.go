package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
)

// answered waits for from's answer quoting text in the lead's inbox.
func (s *spTeam) answered(t *testing.T, from, text, pane string) {
	t.Helper()
	inbox := filepath.Join(s.root, "teams", s.name, "inboxes", "team-lead.json")
	testutil.Eventually(t, 60*time.Second, from+"'s answer in the lead's inbox; its pane:\n"+s.capture(pane), func() bool {
		var msgs []mailbox.Message
		b, _ := os.ReadFile(inbox)
		if err := json.Unmarshal(b, &msgs); err != nil {
			return false
		}
		for _, m := range msgs {
			if m.From == from && strings.Contains(m.Text, text) {
				return true
			}
		}
		return false
	})
}

// When the host sees the lead's team root at the same path (as both
// machines would mount one NFS export), spawn-pane --host uses that
// folder: no sshfs mount is made, the lead's message reaches the teammate
// on the host and its answer reaches the lead, and kill-pane leaves
// nothing on either machine, nor the test file that proved the folder is
// the same.
func TestSpawnPaneOnAHostSharingTheTeamFolder(t *testing.T) {
	s, host, runtime := spWithHost(t, func(root string, o *sshhost.Options) { o.Same = []string{root} })

	out, errOut, code := s.run("spawn-pane", "--team", s.name, "--name", "echo", "--host", sshhost.Alias, "--json", "--", "paneteam", "teammate")
	if code != 0 {
		t.Fatalf("spawn-pane --host: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "a shared file system): no sshfs mount") {
		t.Errorf("spawn-pane did not say it uses the shared folder: %q", errOut)
	}
	var res spawnResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.PaneID == "" {
		t.Fatalf("spawn-pane --json: %v %q", err, out)
	}
	pane := res.PaneID
	s.mustRun("send", "--team", s.name, "--to", "echo", "hello over nfs")
	s.answered(t, "echo", "hello over nfs", pane)
	if got := host.MustRun(t, "grep -c fuse /proc/mounts; true"); strings.TrimSpace(got) != "0" {
		t.Errorf("a FUSE mount on the host, though it shares the team's folder: %s", got)
	}
	if got := host.MustRun(t, "ps -eo args | grep -c '^paneteam teammate'; true"); strings.TrimSpace(got) != "1" {
		t.Errorf("the teammate does not run on the host: %s", got)
	}
	s.mustRun("kill-pane", "--team", s.name, "--name", "echo")
	nothingLeft(t, host, runtime, nil)
	left, _ := filepath.Glob(filepath.Join(s.root, "t*", s.name, ".paneteam-share-*"))
	if len(left) > 0 {
		t.Errorf("test files left in the team's folders: %v", left)
	}
	if _, err := os.Stat(filepath.Join(s.root, "teams", s.name, "config.json")); err != nil {
		t.Errorf("the team's folder suffered from the teammate's end: %v", err)
	}
}

// A host with a folder of its own at the team's path is not taken for a
// shared one: the team is mounted with sshfs as for any host, and
// spawn-pane says why in one line.
func TestSpawnPaneOnAHostWithAnotherFolderAtTheSamePath(t *testing.T) {
	s, host, runtime := spWithHost(t, nil)
	host.MustRun(t, "mkdir -p "+s.root+"/teams/"+s.name+" "+s.root+"/tasks/"+s.name)

	out, errOut, code := s.run("spawn-pane", "--team", s.name, "--name", "echo", "--host", sshhost.Alias, "--json", "--", "paneteam", "teammate")
	if code != 0 {
		t.Fatalf("spawn-pane --host: exit %d\n%s", code, errOut)
	}
	want := "has a folder at " + filepath.Join(s.root, "teams", s.name) + ", but not this machine's"
	if !strings.Contains(errOut, want) || !strings.Contains(errOut, "mounting the team there with sshfs") {
		t.Errorf("spawn-pane did not say why it mounts: want %q in %q", want, errOut)
	}
	if got := host.MustRun(t, "grep -c fuse.sshfs /proc/mounts; true"); strings.TrimSpace(got) != "1" {
		t.Errorf("not one sshfs mount on the host: %s", got)
	}
	var res spawnResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.PaneID == "" {
		t.Fatalf("spawn-pane --json: %v %q", err, out)
	}
	pane := res.PaneID
	pids := remotePIDs(t, runtime)
	s.mustRun("send", "--team", s.name, "--to", "echo", "hello over sshfs")
	s.answered(t, "echo", "hello over sshfs", pane)
	s.mustRun("kill-pane", "--team", s.name, "--name", "echo")
	if got := host.MustRun(t, "ls -A "+s.root+"/teams/"+s.name+" "+s.root+"/tasks/"+s.name); strings.Contains(got, "config") || strings.Contains(got, "inbox") || strings.Contains(got, "paneteam") {
		t.Errorf("the host's own folder at the team's path was written to:\n%s", got)
	}
	nothingLeft(t, host, runtime, pids)
}
