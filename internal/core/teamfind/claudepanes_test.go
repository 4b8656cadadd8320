package teamfind

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/team"
)

// startedProcess runs argv and returns its pid and start time; ended
// waits for it to exit first.
func startedProcess(t *testing.T, ended bool, argv ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start, err := proc.StartTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if ended {
		cmd.Process.Kill()
		cmd.Wait()
	} else {
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	return cmd.Process.Pid, start
}

// A lead started by 'paneteam claude' in kitty, WezTerm, Zellij or iTerm2
// keeps its teammates' panes in paneteam's tmux, whose folder is found by
// the lead's pid in paneteam's state folder, even when the lead's
// environment cannot be read (macOS has no /proc; here the lead is
// gone): status tells its teammates' panes alive or dead. A folder
// recording another process of that pid is not the lead's.
func TestClaudePaneStateFindsVirtualServerByLeadPID(t *testing.T) {
	state := t.TempDir()
	getenv := func(k string) string { return map[string]string{"PANETEAM_STATE_DIR": state}[k] }
	leadPID, leadStart := startedProcess(t, true, "sleep", "600")
	if _, err := proc.Environ(leadPID); err == nil {
		t.Fatalf("the lead's environment is still readable")
	}
	gatePID, gateStart := startedProcess(t, false, "sleep", "600")
	dir := filepath.Join(state, "vtmux", strconv.Itoa(leadPID))
	gate := filepath.Join(dir, "gates", "1")
	if err := os.MkdirAll(filepath.Dir(gate), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gate+".pid", []byte(strconv.Itoa(gatePID)+":"+gateStart+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := virtualtmux.State{Terminal: "kitty", Lead: strconv.Itoa(leadPID) + ":" + leadStart, Next: 2,
		Panes: []virtualtmux.Pane{{ID: "%1", Handle: "5", Gate: gate}}}
	b, _ := json.Marshal(st)
	if err := os.WriteFile(filepath.Join(dir, "panes.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	lead := func(start string) team.Lead {
		return team.Lead{PID: int64(leadPID), Process: &team.LeadProcess{PID: int64(leadPID), ProcStart: start, HasProcStart: true}}
	}
	for _, c := range []struct{ pane, want string }{{"%1", PaneAlive}, {"%2", PaneDead}} {
		got, why := ClaudePaneState(context.Background(), lead(leadStart), &team.Member{Name: "bob", TmuxPaneID: c.pane}, getenv)
		if got != c.want {
			t.Errorf("pane %s: %s (%s); want %s", c.pane, got, why, c.want)
		}
	}
	got, why := ClaudePaneState(context.Background(), lead(leadStart+"1"), &team.Member{Name: "bob", TmuxPaneID: "%1"}, getenv)
	if got != PaneUnknown || !strings.Contains(why, "paneteam claude") {
		t.Errorf("a folder recording another process of the lead's pid: %s (%s); want unknown, naming 'paneteam claude'", got, why)
	}
}
