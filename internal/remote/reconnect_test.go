package remote_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// A reconnect while the host cannot be reached fails, says so, and keeps
// the lead's record of the teammate: it still runs on that host for
// status, and the next reconnect, once the host answers again, brings it
// back.
func TestAFailedReconnectKeepsTheTeammate(t *testing.T) {
	l := newLab(t, sshhost.Options{})
	pane, _ := l.spawn(t, "alice", "sleep", "600")
	_, _, done := startPane(t, pane)
	testutil.Eventually(t, 30*time.Second, "the teammate running on the host", func() bool {
		out, err := l.host.Run(t, "ps -eo args | grep -x 'sleep 600'; true")
		return err == nil && strings.TrimSpace(out) != ""
	})
	l.host.Proxy.Drop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the pane still runs after the drop")
	}
	testutil.Eventually(t, 10*time.Second, "the mount's processes on the lead to end", func() bool {
		for _, pid := range l.pids {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && bytes.Contains(b, []byte("s")) {
				return false
			}
		}
		return true
	})
	testutil.Eventually(t, 20*time.Second, "the teammate stopped on the host", func() bool {
		out, err := l.host.Run(t, "ps -eo args | grep -x 'sleep 600'; true")
		return err == nil && strings.TrimSpace(out) == ""
	})

	l.host.Proxy.Freeze()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	_, _, err := remote.Reconnect(ctx, l.getenv, l.root, l.team, "alice", l.exe, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "reconnect alice on "+sshhost.Alias) || !strings.Contains(err.Error(), "no answer") {
		t.Fatalf("reconnect to a host that does not answer: %v; want an error naming the teammate, the host and that it did not answer", err)
	}
	if got := remote.Host(l.getenv, l.root, l.team, "alice"); got != sshhost.Alias {
		t.Fatalf("after the failed reconnect the lead says alice runs on %q; want %q (its record lost)", got, sshhost.Alias)
	}

	l.host.Proxy.Thaw()
	argv, undo, err := remote.Reconnect(t.Context(), l.getenv, l.root, l.team, "alice", l.exe, io.Discard, nil)
	if err != nil {
		t.Fatalf("reconnect once the host answers again: %v", err)
	}
	t.Cleanup(undo)
	_, out, _ := startPane(t, argv)
	testutil.Eventually(t, 30*time.Second, "the teammate running on the host again; its pane:\n"+out.String(), func() bool {
		got, err := l.host.Run(t, "ps -eo args | grep -x 'sleep 600'; true")
		return err == nil && strings.TrimSpace(got) != ""
	})
}
