package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestMonitorSpent: monitor --spent prints a line when a teammate's
// estimated cost passes the threshold, once, and not for what was spent
// before it started.
func TestMonitorSpent(t *testing.T) {
	w := newWatchTeam(t, "alice")
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state", "paneteam")
	w.vars = append(w.vars, "HOME="+home)
	cfgDir := filepath.Join(home, "claude")
	if err := launches.Open(state).Write(launches.Record{Root: w.root, Team: "crew", Agent: "alice", CLI: "claude",
		Via: launches.ViaSpawnPane, Cwd: "/", SessionID: "s", ConfigDir: cfgDir}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfgDir, "projects", "-", "s.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o700)
	reply := func(id string, out int) string {
		return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"model":"claude-haiku-4-5","usage":{"input_tokens":0,"output_tokens":%d}}}`+"\n", id, out)
	}
	// $5 per million output tokens: $0.50 before monitor starts.
	os.WriteFile(path, []byte(reply("m1", 100000)), 0o600)
	human := w.startMonitor("--spent", "0.25", "--spent", "1")
	js := w.startMonitor("--json", "--spent", "1")
	time.Sleep(500 * time.Millisecond)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(reply("m2", 200000)) // $1.50 now
	f.Close()
	expect(t, human, js, []string{teamwatch.KindSpent, "alice", "spent over $1.00: $1.50 so far"},
		map[string]any{"kind": teamwatch.KindSpent, "who": "alice", "thresholdUSD": 1.0, "costUSD": 1.5})
	time.Sleep(500 * time.Millisecond)
	if n := strings.Count(human.out.String(), teamwatch.KindSpent); n != 1 {
		t.Errorf("%d member-spent lines, want one ($1; $0.25 was passed before monitor started):\n%s", n, human.out.String())
	}
	_ = testutil.Env
}
