package backend_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/layout"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// privateWorld is a lead outside tmux: teammates go to a private server
// of the team's own (backend.PrivateServerName) under a test's own TMUX_TMPDIR.
func privateWorld(t *testing.T) (backend.Backend, *team.Config, tmux.Server) {
	testutil.RequireTool(t, "tmux")
	tmpdir := testutil.ShortTempDir(t)
	vars := map[string]string{"TMUX_TMPDIR": tmpdir, "PANETEAM_TMUX_CONFIG": "/dev/null"}
	env := backend.Env{Getenv: func(k string) string { return vars[k] }, LookPath: exec.LookPath}
	b, err := backend.Choose(env, nil, team.BackendTmux)
	if err != nil {
		t.Fatal(err)
	}
	const leader = 4000000 // no such pid: the name only matters
	cfg := &team.Config{Name: "crew", Paneteam: &team.TeamMeta{LeaderPID: leader}}
	srv := tmux.Server{Name: backend.PrivateServerName(leader, team.Team{Name: cfg.Name}), TmpDir: tmpdir}
	sock, _ := srv.SocketPath()
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	return b, cfg, srv
}

// pidCommand is a command that writes its pid to a file and then runs
// until killed.
func pidCommand(t *testing.T) ([]string, string) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	return []string{"/bin/sh", "-c", `echo $$ > "$0"; exec sleep 600`, pidFile}, pidFile
}

func waitPID(t *testing.T, file string) int {
	t.Helper()
	var pid int
	testutil.Eventually(t, 10*time.Second, "the command to start", func() bool {
		b, err := os.ReadFile(file)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	return pid
}

// assertNothingLeft asserts that a failed spawn left nothing running: no process with
// the command's pid, no server on the socket, no socket or lock file.
func assertNothingLeft(t *testing.T, srv tmux.Server, pid int) {
	t.Helper()
	if pid > 0 {
		testutil.Eventually(t, 5*time.Second, fmt.Sprintf("the command (pid %d) to end", pid), func() bool {
			return syscall.Kill(pid, 0) != nil
		})
	}
	sock, _ := srv.SocketPath()
	if _, err := srv.Run(context.Background(), "list-sessions"); !errors.Is(err, tmux.ErrNoServer) {
		t.Errorf("the private server still answers: %v", err)
	}
	for _, p := range []string{sock, sock + tmux.LockSuffix} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind (%v)", p, err)
		}
	}
}

// TestInterruptedSpawnLeavesNothingRunning: a spawn interrupted after its
// command started (Ctrl-C during the startup check) ends the command and
// the private server it started.
func TestInterruptedSpawnLeavesNothingRunning(t *testing.T) {
	b, cfg, srv := privateWorld(t)
	argv, pidFile := pidCommand(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pidc := make(chan int, 1)
	go func() { // not the test's goroutine: no t.Fatal here
		for pid := 0; ; time.Sleep(10 * time.Millisecond) {
			b, _ := os.ReadFile(pidFile)
			if pid, _ = strconv.Atoi(strings.TrimSpace(string(b))); pid > 0 {
				pidc <- pid
				cancel()
				return
			}
		}
	}()
	m := team.Member{Name: "alice", AgentID: "alice@crew", Cwd: t.TempDir()}
	_, err := b.Spawn(ctx, backend.Spec{Config: cfg, Member: m, Argv: argv, StartupCheck: 30 * time.Second})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Spawn = %v, want it interrupted", err)
	}
	assertNothingLeft(t, srv, <-pidc)
}

// TestDiscardTakesBackASpawn: a spawn that succeeded in its backend but
// could not be recorded is taken back whole.
func TestDiscardTakesBackASpawn(t *testing.T) {
	b, cfg, srv := privateWorld(t)
	argv, pidFile := pidCommand(t)
	m := team.Member{Name: "alice", AgentID: "alice@crew", Cwd: t.TempDir()}
	p, err := b.Spawn(context.Background(), backend.Spec{Config: cfg, Member: m, Argv: argv})
	if err != nil {
		t.Fatal(err)
	}
	pid := waitPID(t, pidFile)
	if err := backend.Discard(context.Background(), b, cfg, m, p); err != nil {
		t.Fatal(err)
	}
	assertNothingLeft(t, srv, pid)
}

// TestFailedCommandOnPrivateServerStopsIt: a command that exits at once
// fails the spawn; alone on a private server nobody looks at, its pane
// is not kept running there, and the error still shows its output.
func TestFailedCommandOnPrivateServerStopsIt(t *testing.T) {
	b, cfg, srv := privateWorld(t)
	m := team.Member{Name: "alice", AgentID: "alice@crew", Cwd: t.TempDir()}
	_, err := b.Spawn(context.Background(), backend.Spec{Config: cfg, Member: m,
		Argv: []string{"sh", "-c", "echo no key here; exit 3"}, StartupCheck: 5 * time.Second})
	var exited *backend.ExitedError
	if !errors.As(err, &exited) || !strings.Contains(err.Error(), "no key here") || !strings.Contains(err.Error(), "nothing is left running") {
		t.Fatalf("Spawn = %v, want the exit with its output and the server stopped", err)
	}
	assertNothingLeft(t, srv, 0)
}

// TestWindowsLayoutGivesEachTeammateAWindow: inside tmux, with the
// windows layout, each teammate gets a window of its own and the lead's
// pane keeps its whole window.
func TestWindowsLayoutGivesEachTeammateAWindow(t *testing.T) {
	srv := testutil.TmuxServer(t)
	lead := testutil.FirstPane(t, srv)
	vars := map[string]string{}
	for _, kv := range testutil.TmuxEnv(t, srv, lead) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	env := backend.Env{Getenv: func(k string) string { return vars[k] }, LookPath: exec.LookPath}
	b, err := backend.Choose(env, nil, team.BackendTmux)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &team.Config{Name: "crew"}
	windows := map[string]string{}
	for _, name := range []string{"ann", "bob"} {
		m := team.Member{Name: name, AgentID: name + "@crew", Cwd: t.TempDir()}
		p, err := b.Spawn(context.Background(), backend.Spec{Config: cfg, Member: m, Argv: []string{"sleep", "600"},
			Layout: layout.Policy{Kind: layout.Windows}})
		if err != nil {
			t.Fatal(err)
		}
		w, err := srv.Run(context.Background(), "display-message", "-p", "-t", p.ID, "#{window_id} #{window_panes}")
		if err != nil {
			t.Fatal(err)
		}
		windows[name] = w
	}
	leadWin, _ := srv.Run(context.Background(), "display-message", "-p", "-t", lead, "#{window_id} #{window_panes} #{pane_width}")
	if windows["ann"] == windows["bob"] || !strings.HasSuffix(windows["ann"], " 1") || !strings.HasSuffix(windows["bob"], " 1") {
		t.Errorf("teammates' windows %q, want one window each", windows)
	}
	if leadWin != "@0 1 200" {
		t.Errorf("the lead's window is %q, want it untouched (one pane, 200 wide)", leadWin)
	}
}
