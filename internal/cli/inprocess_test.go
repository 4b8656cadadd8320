package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
)

// ipTeam is a team on a machine with no tmux and no it2: PATH holds only
// paneteam and the few programs the teammates run.
type ipTeam struct {
	spTeam
	path string // the PATH of every paneteam run
}

func ipSetup(t *testing.T) *ipTeam {
	bin := t.TempDir()
	if err := os.Symlink(testutil.Binary(t), filepath.Join(bin, "paneteam")); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"sh", "cat", "stty", "sleep"} {
		p, err := exec.LookPath(n)
		if err != nil {
			t.Fatalf("%s is needed: %v", n, err)
		}
		os.Symlink(p, filepath.Join(bin, n))
	}
	s := &ipTeam{spTeam: spTeam{t: t, root: testutil.Root(t), name: "crew"}, path: bin}
	var env []string
	for _, kv := range testutil.Env() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	s.vars = append(env, "PATH="+bin, "PANETEAM_ROOT="+s.root)
	s.mustRun("team-create", "crew")
	return s
}

func (s *ipTeam) member(name string) team.Member {
	s.t.Helper()
	_, cfg, err := team.Open(s.root, s.name)
	if err != nil {
		s.t.Fatal(err)
	}
	m := cfg.Member(name)
	if m == nil {
		s.t.Fatalf("no member %s", name)
	}
	return *m
}

func (s *ipTeam) paneState(name string) string {
	s.t.Helper()
	out := s.mustRun("status", "--team", s.name, "--json")
	var st struct {
		Members []teamwatch.Member `json:"members"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		// status may print one team or a list; accept both shapes
		var list []struct {
			Members []teamwatch.Member `json:"members"`
		}
		if err2 := json.Unmarshal([]byte(out), &list); err2 != nil || len(list) == 0 {
			s.t.Fatalf("status --json: %v\n%s", err, out)
		}
		st.Members = list[0].Members
	}
	for _, m := range st.Members {
		if m.Name == name {
			return m.Pane
		}
	}
	s.t.Fatalf("status lists no %s:\n%s", name, out)
	return ""
}

func TestInProcessSpawnLogsAttachKillWithoutTmux(t *testing.T) {
	s := ipSetup(t)
	_, stderr, code := s.run("spawn-pane", "--team", "crew", "--name", "worker", "--",
		"paneteam", "teammate", "--idle-after", "300ms", "--", "sh", "-c", "stty -echo; exec cat")
	if code != 0 {
		t.Fatalf("spawn-pane: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "in-process") {
		t.Errorf("the fallback to in-process was not announced: %q", stderr)
	}
	m := s.member("worker")
	if m.BackendType != "in-process" || m.TmuxPaneID != "in-process" || m.Paneteam == nil || m.Paneteam.PID == 0 || m.Paneteam.PIDStart == "" {
		t.Fatalf("member row = %+v %+v", m, m.Paneteam)
	}
	if got := s.paneState("worker"); got != paneAlive {
		t.Fatalf("status: pane %q, want alive", got)
	}

	// A message is typed into cat, and shows in the log.
	s.mustRun("send", "--team", "crew", "--to", "worker", "hello-from-the-lead")
	testutil.Eventually(t, 15*time.Second, "the message never reached the teammate's log", func() bool {
		out, _, _ := s.run("logs", "--team", "crew", "--name", "worker")
		return strings.Contains(out, "hello-from-the-lead")
	})

	// logs -f follows until the teammate ends.
	follow := exec.Command(testutil.Binary(t), "logs", "--team", "crew", "--name", "worker", "-f")
	follow.Env = s.vars
	var followOut testutil.Buffer
	follow.Stdout = &followOut
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	followDone := make(chan error, 1)
	go func() { followDone <- follow.Wait() }()

	attachAndDetach(t, s)

	// kill-pane ends teammate and host; logs -f then returns.
	s.mustRun("kill-pane", "--team", "crew", "--name", "worker")
	testutil.Eventually(t, 15*time.Second, "the host outlived kill-pane", func() bool {
		return !procAlive(m.Paneteam.PID, m.Paneteam.PIDStart)
	})
	select {
	case err := <-followDone:
		if err != nil {
			t.Fatalf("logs -f: %v", err)
		}
	case <-time.After(15 * time.Second):
		follow.Process.Kill()
		t.Fatal("logs -f did not return after the teammate ended")
	}
	if !strings.Contains(followOut.String(), "typed-by-hand") {
		t.Fatalf("logs -f missed output: %q", followOut.String())
	}
}

// attachAndDetach runs 'paneteam attach' on a real terminal, types a
// line, sees cat print it, detaches with Ctrl-] and checks the terminal
// is back in its cooked mode.
func attachAndDetach(t *testing.T, s *ipTeam) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	pty.Setsize(master, &pty.Winsize{Rows: 30, Cols: 100})
	cmd := exec.Command(testutil.Binary(t), "attach", "--team", "crew", "--name", "worker")
	cmd.Env = s.vars
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var screen testutil.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			screen.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	testutil.Eventually(t, 10*time.Second, "attach did not say how to detach", func() bool { return strings.Contains(screen.String(), "Ctrl-]") })
	master.Write([]byte("typed-by-hand\r"))
	testutil.Eventually(t, 10*time.Second, "typing through attach did not reach cat", func() bool {
		return strings.Contains(screen.String(), "typed-by-hand")
	})
	master.Write([]byte{0x1d})
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("attach after detach: %v\n%s", err, screen.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("attach did not end on Ctrl-]:\n%q", screen.String())
	}
	// attach has exited; what it printed last may still be on its way
	// through the pty to the reader above.
	testutil.Eventually(t, 5*time.Second, "the detach message", func() error {
		if strings.Contains(screen.String(), "detached") {
			return nil
		}
		return fmt.Errorf("no detach message: %q", screen.String())
	})
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if tio.Lflag&unix.ICANON == 0 || tio.Lflag&unix.ECHO == 0 {
		t.Fatal("attach left the terminal in raw mode")
	}
	if !procAlive(s.member("worker").Paneteam.PID, s.member("worker").Paneteam.PIDStart) {
		t.Fatal("detaching ended the teammate")
	}
}

func TestInProcessHostDeathShowsInStatus(t *testing.T) {
	s := ipSetup(t)
	s.mustRun("spawn-pane", "--team", "crew", "--name", "worker", "--backend", "in-process", "--", "sleep", "1000")
	m := s.member("worker")
	syscall.Kill(m.Paneteam.PID, syscall.SIGKILL)
	testutil.Eventually(t, 10*time.Second, "status never reported the dead host", func() bool { return s.paneState("worker") == paneDead })
	if _, stderr, code := s.run("attach", "--team", "crew", "--name", "worker"); code == 0 || !strings.Contains(stderr, "logs") {
		t.Fatalf("attach to a dead teammate: exit %d, %q; want a failure pointing at logs", code, stderr)
	}
	s.mustRun("kill-pane", "--team", "crew", "--name", "worker")
}

func procAlive(pid int, start string) bool { return start != "" && proc.Alive(pid, start) }
