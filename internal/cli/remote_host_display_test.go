package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/team"
)

// hostRecord writes the lead's own record of a teammate started with
// spawn-pane --host (what remote.Start keeps), without a real host: what
// status and monitor show comes from that record alone.
func (w *watchTeam) hostRecord(member, host string) {
	w.t.Helper()
	runtime := w.t.TempDir()
	w.vars = append(w.vars, "XDG_RUNTIME_DIR="+runtime)
	getenv := func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return runtime
		}
		return ""
	}
	dir := remote.StateDir(getenv, w.root, filepath.Base(w.tm.Dir()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	b, _ := json.Marshal(remote.State{Host: host})
	if err := os.WriteFile(filepath.Join(dir, member+".json"), b, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// status runs paneteam status with the team's variables.
func (w *watchTeam) status(args ...string) string {
	w.t.Helper()
	p := w.start(append([]string{"status", "--team", "crew"}, args...)...)
	if code := p.exit(w.t, 20*time.Second); code != 0 {
		w.t.Fatalf("status: exit %d\n%s", code, p.errb)
	}
	return p.out.String()
}

// A teammate on another machine is alice@buildbox wherever paneteam
// names members for people: status, status --json and monitor; a local
// teammate keeps its bare name.
func TestStatusAndMonitorShowARemoteTeammatesHost(t *testing.T) {
	w := newWatchTeam(t, "bob")
	w.hostRecord("alice", "buildbox")
	human, js := w.startMonitor(), w.startMonitor("--json")

	w.join("alice")
	expect(t, human, js, []string{"member-joined", "alice@buildbox", "joined the team"},
		map[string]any{"kind": "member-joined", "who": "alice", "host": "buildbox"})
	w.send("alice", team.LeadName, "the build is green", "build green")
	expect(t, human, js, []string{"message", "alice@buildbox", "to team-lead"},
		map[string]any{"kind": "message", "who": "alice", "host": "buildbox"})
	w.send("bob", team.LeadName, "hello", "hi")
	expect(t, human, js, []string{"message", "bob ", "to team-lead", "hi"}, map[string]any{"kind": "message", "who": "bob"})
	if ev := jsonEvent(js.out.String(), map[string]any{"kind": "message", "who": "bob"}); ev["host"] != nil {
		t.Errorf("a local teammate's event names a host: %v", ev)
	}

	st := w.status()
	var aliceLine, bobLine string
	for _, l := range strings.Split(st, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && strings.HasPrefix(f[0], "alice") {
			aliceLine = l
		}
		if len(f) > 0 && strings.HasPrefix(f[0], "bob") {
			bobLine = l
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(aliceLine), "alice@buildbox ") {
		t.Errorf("status does not show alice@buildbox:\n%s", st)
	}
	if !strings.HasPrefix(strings.TrimSpace(bobLine), "bob ") {
		t.Errorf("status shows the local teammate other than as bob:\n%s", st)
	}

	var out []struct {
		Members []struct{ Name, Host string }
	}
	if err := json.Unmarshal([]byte(w.status("--json")), &out); err != nil || len(out) != 1 {
		t.Fatalf("status --json: %v", err)
	}
	hosts := map[string]string{}
	for _, m := range out[0].Members {
		hosts[m.Name] = m.Host
	}
	if hosts["alice"] != "buildbox" || hosts["bob"] != "" {
		t.Errorf("status --json hosts: %v", hosts)
	}
}
