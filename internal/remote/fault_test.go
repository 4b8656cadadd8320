package remote_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/internal/tests/sshhost"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// paneteamTeam makes the lab's team a real one, led from this test.
func (l *lab) paneteamTeam(t *testing.T) {
	t.Helper()
	os.RemoveAll(filepath.Join(l.root, "teams", l.team))
	os.RemoveAll(filepath.Join(l.root, "tasks", l.team))
	out, err := exec.Command(l.exe, "--root", l.root, "team-create", "--leader-pid", fmt.Sprint(os.Getpid()), l.team).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != l.team {
		t.Fatalf("team-create: %v %s", err, out)
	}
}

// inbox reads the lead's inbox as paneteam and Claude Code do: the whole
// file as one JSON array.
func (l *lab) inbox(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(l.root, "teams", l.team, "inboxes", name+".json"))
	if err != nil {
		t.Fatalf("the inbox is missing: %v", err)
	}
	var msgs []struct{ Text string }
	if err := json.Unmarshal(b, &msgs); err != nil {
		t.Fatalf("the inbox does not parse: %v\n%s", err, b)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text)
	}
	return out
}

// sender is a teammate on the host that sends numbered messages to the
// lead as fast as it can, printing each one acknowledged; after 10 it
// takes the inbox's lock (as a writer caught mid-append holds it) and
// keeps it.
const sender = `i=0; while [ $i -lt 10 ]; do i=$((i+1)); paneteam send --to team-lead "m$i" >/dev/null && echo "ack m$i"; done
mkdir "$PANETEAM_ROOT/teams/$PANETEAM_TEAM/inboxes/team-lead.json.lock" && echo holding; exec sleep 600`

var ackRE = regexp.MustCompile(`ack (m\d+)`)

// faultRun starts the sender, lets it send, breaks the connection with
// fault, and checks what the issue promises: the pane ends within the
// keepalive time, the teammate stops on the host and writes nothing to
// its disk, the mount is gone, the inbox parses with every acknowledged
// message, and the lead can write again (a lock the host held is taken
// over as stale).
func faultRun(t *testing.T, fault func(*sshhost.Proxy), within time.Duration) {
	l := newLab(t, sshhost.Options{})
	l.paneteamTeam(t)
	pane, _ := l.spawn(t, "alice", "sh", "-c", sender)
	_, out, done := startPane(t, pane)
	testutil.Eventually(t, 120*time.Second, "acknowledged sends from the host; its pane:\n"+out.String(), func() bool {
		return strings.Contains(out.String(), "holding")
	})
	start := time.Now()
	fault(l.host.Proxy)
	select {
	case <-done:
		t.Logf("the pane ended %s after the fault", time.Since(start).Round(time.Millisecond))
	case <-time.After(within):
		t.Fatalf("the pane still runs %s after the fault", within)
	}
	// The host, seen past the proxy: a frozen connection stays frozen, so
	// what stops the teammate is the host's own paneteam.
	var left string
	defer func() {
		if t.Failed() {
			t.Logf("on the host:\n%s\n%s", left, l.host.MustRun(t, "ps -eo pid,stat,wchan:20,args | cut -c1-120; ls /sys/fs/fuse/connections"))
		}
	}()
	testutil.Eventually(t, 25*time.Second, "the teammate stopped and its mount gone on the host", func() bool {
		got, err := l.host.Run(t, `grep fuse /proc/mounts; ps -eo args | grep -E '^(sh -c i=0|sleep|paneteam|/root/.cache|sshfs)' | grep -v grep; true`)
		left = got
		return err == nil && strings.TrimSpace(got) == ""
	})
	if got := l.host.MustRun(t, "find "+sshhost.Home+"/.claude -type f 2>/dev/null; true"); strings.TrimSpace(got) != "" {
		t.Errorf("the teammate wrote to the host's own disk after the fault:\n%s", got)
	}
	l.host.Proxy.Thaw()

	// Every message acknowledged on the host is in the lead's inbox, once.
	have := map[string]int{}
	for _, m := range l.inbox(t, "team-lead") {
		have[m]++
	}
	acks := ackRE.FindAllStringSubmatch(out.String(), -1)
	for _, a := range acks {
		if have[a[1]] != 1 {
			t.Errorf("acknowledged %s is in the lead's inbox %d times", a[1], have[a[1]])
		}
	}
	t.Logf("%d acknowledged, %d in the inbox", len(acks), len(have))

	// The lead writes again, whatever lock the host left.
	begin := time.Now()
	if b, err := exec.Command(l.exe, "--root", l.root, "send", "--team", l.team, "--to", "team-lead", "--from", "bob", "after").CombinedOutput(); err != nil {
		t.Fatalf("the lead cannot write after the fault: %v %s", err, b)
	}
	t.Logf("the lead's next send took %s (the host's lock taken over as stale)", time.Since(begin).Round(time.Millisecond))
	if _, err := os.Stat(filepath.Join(l.root, "teams", l.team, "inboxes", "team-lead.json.lock")); err == nil {
		t.Error("the host's lock is still there after the lead's send")
	}
	if got := l.inbox(t, "team-lead"); got[len(got)-1] != "after" {
		t.Errorf("the lead's send is not last in the inbox: %q", got[len(got)-3:])
	}
	if err := remote.Stop(t.Context(), l.getenv, l.root, l.team, "alice"); err != nil {
		t.Logf("stop after the fault: %v", err)
	}
	testutil.Eventually(t, 10*time.Second, "nothing left on the lead", func() bool { return l.leftOnLead(t) == "" })
}

func TestDroppedConnectionStopsTheRemoteTeammate(t *testing.T) {
	faultRun(t, (*sshhost.Proxy).Drop, 5*time.Second)
}

func TestFrozenConnectionStopsTheRemoteTeammate(t *testing.T) {
	faultRun(t, (*sshhost.Proxy).Freeze, remote.Keepalive*(remote.KeepaliveCount+2))
}
