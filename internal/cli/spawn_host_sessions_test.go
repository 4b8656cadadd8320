package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/sshhost"
)

// sshd's MaxSessions caps the sessions on the team's one connection to a
// host; each remote teammate holds two (its pane and its mount) and a
// spawn needs one more for a moment. With MaxSessions 3 one teammate
// fits; the second spawn fails naming MaxSessions and the fix, and
// leaves nothing of itself on either machine, while the first teammate
// goes on working.
func TestSpawnPaneAtTheHostsMaxSessions(t *testing.T) {
	s, host, runtime := spWithHost(t, func(_ string, o *sshhost.Options) { o.MaxSessions = 3 })

	s.mustRun("spawn-pane", "--team", s.name, "--name", "ann", "--host", sshhost.Alias, "--", "paneteam", "teammate")
	pids := remotePIDs(t, runtime)
	_, errOut, code := s.run("spawn-pane", "--team", s.name, "--name", "ben", "--host", sshhost.Alias, "--", "paneteam", "teammate")
	if code == 0 {
		t.Fatalf("a second teammate was spawned past MaxSessions 3")
	}
	for _, want := range []string{"MaxSessions", "sshd_config", "another host"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("spawn-pane's error does not name %q: %q", want, errOut)
		}
	}
	if got := host.MustRun(t, "grep -c fuse.sshfs /proc/mounts; ls "+sshhost.Home+"/.claude/paneteam/mnt/"+s.name+"; true"); strings.Fields(got)[0] != "1" || strings.Contains(got, "ben") {
		t.Errorf("ben left a mount or folder on the host: %s", got)
	}
	if recs, _ := filepath.Glob(filepath.Join(runtime, "paneteam-remote", "*", "ben*")); len(recs) > 0 {
		t.Errorf("ben left records on the lead: %v", recs)
	}
	if b, _ := os.ReadFile(filepath.Join(s.root, "teams", s.name, "config.json")); strings.Contains(string(b), `"ben"`) {
		t.Errorf("ben is a member after its spawn failed")
	}
	if got := remotePIDs(t, runtime); len(got) != len(pids) {
		t.Errorf("the lead serves %d processes for the team's mounts, not ann's %d", len(got), len(pids))
	}
	s.mustRun("send", "--team", s.name, "--to", "ann", "still here")
	s.answered(t, "ann", "still here", "")
	s.mustRun("kill-pane", "--team", s.name, "--name", "ann")
	nothingLeft(t, host, runtime, pids)
}
