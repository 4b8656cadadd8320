package remote_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
