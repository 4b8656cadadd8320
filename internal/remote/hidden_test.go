package remote_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// The .fuse_hidden case: a teammate's process holds the lead's inbox open
// on its mount while paneteam, on the same mount, renames a new version
// over it; libfuse hides the old one as .fuse_hidden… on the lead. The
// connection then drops with the file still open, so libfuse never
// deletes it: paneteam removes it once the team has no teammate on a host.
func TestFuseHiddenLeftoversAreRemoved(t *testing.T) {
	l := newLab(t, sshhost.Options{})
	l.paneteamTeam(t)
	inboxes := filepath.Join(l.root, "teams", l.team, "inboxes")
	pane, _ := l.spawn(t, "alice", "sh", "-c", `paneteam send --to team-lead one >/dev/null
exec 3< "$PANETEAM_ROOT/teams/$PANETEAM_TEAM/inboxes/team-lead.json"
paneteam send --to team-lead two >/dev/null && echo SENT; exec sleep 600`)
	_, out, done := startPane(t, pane)
	testutil.Eventually(t, 30*time.Second, "the second send; the pane:\n"+out.String(), func() bool { return strings.Contains(out.String(), "SENT") })
	hidden := func() []string { m, _ := filepath.Glob(filepath.Join(inboxes, ".fuse_hidden*")); return m }
	if len(hidden()) == 0 {
		t.Fatal("no .fuse_hidden file on the lead: the case this test is about did not happen")
	}
	if got := l.inbox(t, "team-lead"); len(got) != 2 {
		t.Errorf("the lead's inbox: %q", got)
	}
	l.host.Proxy.Drop()
	<-done
	if err := remote.Stop(t.Context(), l.getenv, l.root, l.team, "alice"); err != nil {
		t.Logf("stop after the drop: %v", err)
	}
	if h := hidden(); len(h) > 0 {
		t.Errorf(".fuse_hidden files left after the last remote teammate left: %v", h)
	}
}
