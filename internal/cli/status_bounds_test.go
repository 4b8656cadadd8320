package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// A teammate's transcript holding a negative count and then a sparse
// gigabyte with no line end: status counts the honest reply only, never
// negative dollars, and says how many lines it could not read.
func TestStatusSaysAHostileTranscriptsUnreadableLines(t *testing.T) {
	root, vars := ptRootVars(t)
	state := filepath.Join(vars["HOME"], ".local", "state", "paneteam")
	tm := teamtest.OnRoot(t, root, "crew", team.CreateOptions{LeaderPID: os.Getpid()}, team.Member{Name: "alice", Cwd: "/work/crew"})
	cfgDir := filepath.Join(vars["HOME"], "claude")
	if err := launches.Open(state).Write(launches.Record{Root: root, Team: tm.Name, Agent: "alice", CLI: "claude", Via: launches.ViaSpawnPane,
		Cwd: "/work/crew", SessionID: "s-1", ConfigDir: cfgDir}); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(cfgDir, "projects", "-work-crew", "s-1.jsonl")
	os.MkdirAll(filepath.Dir(transcript), 0o700)
	os.WriteFile(transcript, []byte(
		`{"type":"assistant","message":{"id":"m1","model":"claude-haiku-4-5","usage":{"input_tokens":2000,"output_tokens":500,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}`+"\n"+
			`{"type":"assistant","message":{"id":"m2","model":"claude-haiku-4-5","usage":{"input_tokens":-900000000,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}`+"\n"), 0o600)
	if err := os.Truncate(transcript, 1<<30); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		out, errOut, code := ptRun(t, vars, "", "status", "--team", "crew")
		if code != 0 {
			t.Fatal(errOut)
		}
		for _, want := range []string{"2.0k/500/0/0", "$0.00", "! alice: 2 unreadable line(s)"} {
			if !strings.Contains(out, want) {
				t.Errorf("status lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "-$") || strings.Contains(out, "$-") {
			t.Errorf("status shows negative dollars:\n%s", out)
		}
	}
}
