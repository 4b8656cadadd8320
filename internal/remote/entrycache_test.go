package remote_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// The mount keeps names (entry_timeout) but never attributes or absent
// names. A name the host has looked up must not hide what the lead did to
// the file since: removed, it is gone on the host at once; put back by a
// rename, the host reads the new content. Removed again, the one thing a
// kept name changes: for up to the 1 s it is kept, creating the file
// again without an exclusive flag (an append to a log) fails with "no such
// file" (the kernel opens the file it knows instead of creating one);
// after that it works. paneteam itself creates shared files exclusively
// (link, O_EXCL, mkdir), which the kernel always asks the lead about.
func TestKeptNamesFollowTheLeadsChanges(t *testing.T) {
	l := newLab(t, sshhost.Options{})
	dir := filepath.Join(l.root, "teams", l.team)
	file := filepath.Join(dir, "f.json")
	os.WriteFile(file, []byte("one"), 0o600)
	script := `cd "$PANETEAM_ROOT/teams/crew" || exit 1
wait_for() { while ! grep -q "$1" go 2>/dev/null; do sleep 0.01; done; }
echo "READ1 $(cat f.json)"; wait_for removed
[ -e f.json ] && echo "STAT present" || echo "STAT gone"; wait_for renamed
echo "READ2 $(cat f.json)"; wait_for removed-again
i=0; until echo appended 2>/dev/null >> f.json; do i=$((i+1)); [ $i -gt 30 ] && break; sleep 0.1; done; echo "APPEND after $i failures"
echo END; sleep 60`
	pane, _ := l.spawn(t, "alice", "sh", "-c", script)
	_, out, _ := startPane(t, pane)
	step := func(want, then string, act func()) {
		t.Helper()
		testutil.Eventually(t, 20*time.Second, want+" on the host; its pane:\n"+out.String(), func() bool { return strings.Contains(out.String(), want) })
		act()
		b, _ := os.ReadFile(filepath.Join(dir, "go"))
		os.WriteFile(filepath.Join(dir, "go"), append(b, then+"\n"...), 0o600)
	}
	step("READ1 one", "removed", func() { os.Remove(file) })
	step("STAT", "renamed", func() {
		os.WriteFile(file+".tmp", []byte("two"), 0o600)
		os.Rename(file+".tmp", file)
	})
	step("READ2", "removed-again", func() { os.Remove(file) })
	testutil.Eventually(t, 20*time.Second, "the host to end; its pane:\n"+out.String(), func() bool { return strings.Contains(out.String(), "END") })
	got := out.String()
	for _, want := range []string{"STAT gone", "READ2 two", "APPEND after"} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q on the host; its pane:\n%s", want, got)
		}
	}
	var fails int
	if _, err := fmt.Sscanf(got[strings.Index(got, "APPEND after"):], "APPEND after %d failures", &fails); err != nil || fails > 15 {
		t.Errorf("the host could not create the removed file again within 1.5 s (kept names last 1 s); its pane:\n%s", got)
	}
	t.Logf("creating a removed name again from the host failed %d time(s), 100 ms apart, before it worked", fails)
	if b, _ := os.ReadFile(file); string(b) != "appended\n" {
		t.Errorf("the file the host created again holds %q", b)
	}
}
