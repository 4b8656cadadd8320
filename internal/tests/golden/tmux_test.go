package golden

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestTmuxCommandsJSON pins the --json of the commands that print a tmux
// pane: a teammate spawned beside the lead's pane on a private tmux
// server (the lead "inside tmux" through TMUX and TMUX_PANE), hidden,
// shown again and stopped.
func TestTmuxCommandsJSON(t *testing.T) {
	srv := testutil.TmuxServer(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"sh", "sleep", "tmux"} {
		if err := os.Symlink(testutil.RequireTool(t, n), filepath.Join(bin, n)); err != nil {
			t.Fatal(err)
		}
	}
	s := newSession(t, tmp, bin, testutil.TmuxEnv(t, srv, testutil.FirstPane(t, srv))...)
	lead := os.Getpid()
	s.norm.pid(lead, "<LEAD_PID>")

	s.must("team-create", "--leader-pid", strconv.Itoa(lead), "crew")
	s.golden("tmux-spawn-pane", 0, "spawn-pane", "--json", "--team", "crew", "--name", "alice", "--backend", "tmux", "--", "sleep", "1000")
	s.golden("tmux-status", 0, "status", "--json", "--team", "crew")
	s.must("hide", "--team", "crew", "--name", "alice")
	// show --name takes --json (the flag belongs to show ID) and prints
	// nothing: the empty file pins that.
	s.golden("tmux-show", 0, "show", "--json", "--team", "crew", "--name", "alice")
	s.golden("tmux-kill-pane", 0, "kill-pane", "--json", "--team", "crew", "--name", "alice")
}
