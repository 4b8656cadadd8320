package remote_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// newSharedLab is a lab whose host sees the team root at the same path,
// read and write, as with a shared file system.
func newSharedLab(t *testing.T) *lab {
	t.Helper()
	root := testutil.Root(t)
	l := &lab{root: root, team: "crew", exe: testutil.Binary(t)}
	if err := os.MkdirAll(filepath.Join(root, "teams/crew"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "teams/crew/config.json"), []byte(`{"name":"crew","members":[]}`), 0o600)
	l.host = sshhost.Start(t, sshhost.Options{Hide: []string{root}, Same: []string{root}})
	l.env = map[string]string{remote.EnvSSH: l.host.SSH(), "XDG_RUNTIME_DIR": testutil.ShortTempDir(t)}
	return l
}

// spawnShared starts member on the shared lab's host (claude: with the
// team linked into the host's config folder) and returns its pane's
// command line and what paneteam said.
func (l *lab) spawnShared(t *testing.T, member string, claude bool) ([]string, *bytes.Buffer) {
	t.Helper()
	var say bytes.Buffer
	pane, undo, err := remote.Start(t.Context(), remote.Spawn{
		Getenv: l.getenv, Host: sshhost.Alias, Root: l.root, Team: l.team, Member: member, Claude: claude,
		Exe: l.exe, Argv: []string{"sleep", "600"}, Env: []string{"PANETEAM_TEAM=" + l.team, "PANETEAM_AGENT=" + member}, Say: &say,
	})
	if err != nil {
		t.Fatalf("start %s on the host: %v", member, err)
	}
	t.Cleanup(undo)
	return pane, &say
}

// A team with no tasks folder yet, on a folder the host shares, is still
// found shared: the spawn neither fails nor mounts.
func TestSharedFolderWithoutTasksYet(t *testing.T) {
	l := newSharedLab(t)
	_, say := l.spawnShared(t, "alice", false)
	if !strings.Contains(say.String(), "a shared file system") {
		t.Fatalf("the host shares the team's folder, yet paneteam says:\n%s", say)
	}
}

// On a shared folder every Claude Code teammate's teams/<team> link on
// the host leads to the same place: a second one of the team there is
// refused while the first runs, and leaves the first one's link alone.
func TestSecondClaudeTeammateOnASharedFolderIsRefused(t *testing.T) {
	l := newSharedLab(t)
	link := sshhost.Home + "/.claude/teams/" + l.team
	alice, _ := l.spawnShared(t, "alice", true)
	_, _, aliceDone := startPane(t, alice)
	testutil.Eventually(t, 30*time.Second, "alice's link on the host", func() bool {
		out, err := l.host.Run(t, "readlink "+link+"; true")
		return err == nil && strings.TrimSpace(out) == filepath.Join(l.root, "teams", l.team)
	})
	bob, _ := l.spawnShared(t, "bob", true)
	_, out, bobDone := startPane(t, bob)
	select {
	case <-bobDone:
	case <-time.After(20 * time.Second):
		t.Fatalf("a second Claude Code teammate of the team runs on the host beside the first; its pane:\n%s", out)
	}
	if !strings.Contains(out.String(), "one Claude Code teammate per team per host") {
		t.Errorf("the second teammate's pane says:\n%s", out)
	}
	if got := strings.TrimSpace(l.host.MustRun(t, "readlink "+link+"; true")); got != filepath.Join(l.root, "teams", l.team) {
		t.Errorf("after the refused teammate the first one's link is %q", got)
	}
	select {
	case <-aliceDone:
		t.Fatal("the first teammate's pane ended")
	default:
	}
}

// The confined sftp-server makes an empty teams/<team>/panes on the lead
// to cover it; it goes with the team's last teammate on a host.
func TestLastRemoteTeammateTakesTheEmptyPanesFolder(t *testing.T) {
	l := newLab(t, sshhost.Options{})
	panes := filepath.Join(l.root, "teams", l.team, "panes")
	l.spawn(t, "alice", "sleep", "600")
	l.spawn(t, "bob", "sleep", "600")
	if _, err := os.Stat(panes); err != nil {
		t.Fatalf("the confined server made no %s: %v", panes, err)
	}
	if err := remote.Stop(t.Context(), l.getenv, l.root, l.team, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(panes); err != nil {
		t.Errorf("%s went while bob still runs on the host: %v", panes, err)
	}
	if err := remote.Stop(t.Context(), l.getenv, l.root, l.team, "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(panes); !os.IsNotExist(err) {
		t.Errorf("%s is left on the lead once no teammate of the team is on a host (%v)", panes, err)
	}
}
