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

// A teammate on another host whose connection dropped comes back with
// reconnect: same member, a new pane, and the message the lead sent while
// it was away is waiting in its inbox and gets its answer.
func TestReconnectBringsBackATeammateWhoseConnectionDropped(t *testing.T) {
	s, host, runtime := spWithHost(t, nil)
	if _, errOut, code := s.run("spawn-pane", "--team", s.name, "--name", "echo", "--host", sshhost.Alias, "--", "paneteam", "teammate"); code != 0 {
		t.Fatalf("spawn-pane --host: exit %d\n%s", code, errOut)
	}
	inbox := filepath.Join(s.root, "teams", s.name, "inboxes", "team-lead.json")
	answered := func(text string) func() bool {
		return func() bool {
			b, _ := os.ReadFile(inbox)
			var msgs []mailbox.Message
			json.Unmarshal(b, &msgs)
			for _, m := range msgs {
				if m.From == "echo" && strings.Contains(m.Text, text) {
					return true
				}
			}
			return false
		}
	}
	s.mustRun("send", "--team", s.name, "--to", "echo", "before the drop")
	testutil.Eventually(t, 60*time.Second, "the teammate's first answer", answered("before the drop"))
	agentID := s.config().Member("echo").AgentID

	if _, errOut, code := s.run("reconnect", "--team", s.name, "--name", "echo"); code == 0 || !strings.Contains(errOut, "still running") {
		t.Errorf("reconnect of a teammate still connected: exit %d, %q; want a refusal naming the running pane", code, errOut)
	}

	host.Proxy.Drop()
	testutil.Eventually(t, 30*time.Second, "the teammate's pane to be dead after the drop", func() bool {
		return strings.Contains(s.mustRun("status", "--team", s.name), "dead")
	})
	s.mustRun("send", "--team", s.name, "--to", "echo", "while you were away")

	out := s.mustRun("reconnect", "--team", s.name, "--name", "echo")
	if !strings.Contains(out, "echo reconnected on "+sshhost.Alias) {
		t.Errorf("reconnect says: %q", out)
	}
	testutil.Eventually(t, 60*time.Second, "the answer to the message sent while the teammate was away", answered("while you were away"))
	if m := s.config().Member("echo"); m == nil || m.AgentID != agentID {
		t.Errorf("the member changed: %+v, its agent id was %s", m, agentID)
	}
	st := s.mustRun("status", "--team", s.name)
	if !strings.Contains(st, "echo@"+sshhost.Alias) || strings.Contains(st, "dead") || strings.Contains(st, "echo-2") {
		t.Errorf("status after reconnect:\n%s", st)
	}
	pids := remotePIDs(t, runtime)
	s.mustRun("kill-pane", "--team", s.name, "--name", "echo")
	nothingLeft(t, host, runtime, pids)
}
