package launches

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/paneteam/paneteam/internal/sys/proc"
)

// TestRunningIsJudgedByPIDAndStartTime: a record names its process by pid
// and start time, read back as written; the same pid with another start
// time (a later process given it) is not the teammate; a record an
// older release wrote (no start time, no socket) still reads, and says
// it cannot tell.
func TestRunningIsJudgedByPIDAndStartTime(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	start, err := proc.StartTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	s, root := Open(t.TempDir()), t.TempDir()
	if err := s.Write(Record{Root: root, Team: "crew", Agent: "coder", Program: "sleep", PID: cmd.Process.Pid, PIDStart: start,
		TmuxSocket: "/tmp/tmux-1/paneteam"}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Read(root, "crew", "coder")
	if err != nil || rec == nil || rec.PIDStart != start || rec.TmuxSocket != "/tmp/tmux-1/paneteam" {
		t.Fatalf("read back %+v, %v", rec, err)
	}
	if running, known := rec.Running(); !running || !known {
		t.Errorf("its process runs: Running() = %v, %v", running, known)
	}
	reused := *rec
	reused.PIDStart = "1"
	if running, known := reused.Running(); running || !known {
		t.Errorf("the pid with another start time: Running() = %v, %v; want not running", running, known)
	}

	// The shape an older release wrote: a pid, no start time, no socket.
	old := `{"root":"` + root + `","team":"crew","agent":"old","via":"spawn-pane","program":"sleep","pid":` +
		strconv.Itoa(cmd.Process.Pid) + `,"backend":"tmux","pane":"%1","started":"2026-01-01T00:00:00Z"}` + "\n"
	if err := os.WriteFile(s.path(root, "crew", "old"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err = s.Read(root, "crew", "old")
	if err != nil || rec == nil || rec.PID != cmd.Process.Pid || rec.Pane != "%1" {
		t.Fatalf("an older record: %+v, %v", rec, err)
	}
	if _, known := rec.Running(); known {
		t.Error("an older record without a start time claims to know whether its pid is the teammate")
	}
}
