package cli

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// cronWorld runs the paneteam binary as cron and systemd timers do: an
// environment of PATH=/usr/bin:/bin and nothing else (no LANG, no HOME,
// no TERM), plus the team root and tmux socket folder the test owns.
type cronWorld struct {
	bin, root, sockets string
	vars               []string
}

func newCronWorld(t *testing.T) *cronWorld {
	t.Helper()
	if _, err := os.Stat("/usr/bin/tmux"); err != nil {
		testutil.RequireTool(t, "tmux")
		t.Skip("SKIPPED: tmux is not in /usr/bin, cron's PATH")
	}
	w := &cronWorld{bin: testutil.Binary(t), root: testutil.Root(t)}
	tmpdir := testutil.ShortTempDir(t)
	real, _ := filepath.EvalSymlinks(tmpdir)
	w.sockets = filepath.Join(real, "tmux-"+strconv.Itoa(os.Getuid()))
	w.vars = []string{"PATH=/usr/bin:/bin", "PANETEAM_ROOT=" + w.root, "TMUX_TMPDIR=" + tmpdir, "PANETEAM_TMUX_CONFIG=/dev/null"}
	return w
}

func (w *cronWorld) command(args ...string) *exec.Cmd {
	cmd := exec.Command(w.bin, args...)
	cmd.Env = w.vars // exactly these: env -i
	cmd.Dir = "/"
	return cmd
}

func (w *cronWorld) run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := w.command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

func (w *cronWorld) must(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := w.run(t, args...)
	if code != 0 {
		t.Fatalf("env -i paneteam %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return strings.TrimSpace(out)
}

// server is the private tmux server paneteam starts for team name led by
// leadPID.
func (w *cronWorld) server(t *testing.T, leadPID int, name string) tmux.Server {
	srv := tmux.Server{Socket: filepath.Join(w.sockets, backend.PrivateServerName(leadPID, team.Team{Root: w.root, Name: name}))}
	t.Cleanup(func() { exec.Command("tmux", "-S", srv.Socket, "kill-server").Run() })
	return srv
}

// pidScript is a teammate command that records its pid and runs on.
func pidScript(file string) []string {
	return []string{"/bin/sh", "-c", `echo $$ > "$0"; exec sleep 600`, file}
}

func readPID(t *testing.T, file string) int {
	t.Helper()
	var pid int
	testutil.Eventually(t, 10*time.Second, "the teammate to write "+file, func() bool {
		b, _ := os.ReadFile(file)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	return pid
}

func processGone(t *testing.T, pid int) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, fmt.Sprintf("process %d to end", pid), func() bool {
		return syscall.Kill(pid, 0) != nil
	})
}

// TestCronSpawnAndReapWithoutLocale spawns teammates on a private server
// and reaps them after their lead died, every paneteam call under env -i.
func TestCronSpawnAndReapWithoutLocale(t *testing.T) {
	w := newCronWorld(t)
	lead := leadProcess(t)
	srv := w.server(t, lead.Process.Pid, "crew")
	crew := w.must(t, "team-create", "crew", "--leader-pid", strconv.Itoa(lead.Process.Pid))

	// A working folder whose name tmux would print as "_" without -u.
	cwd := filepath.Join(t.TempDir(), "dír | ünï")
	if err := os.Mkdir(cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	pidFiles := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	var ids []string
	for i, name := range []string{"alice", "zoë"} {
		out := w.must(t, append([]string{"spawn-pane", "--team", crew, "--name", name, "--cwd", cwd, "--json", "--"}, pidScript(pidFiles[i])...)...)
		var res spawnResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("spawn-pane --json printed %q: %v", out, err)
		}
		ids = append(ids, res.PaneID)
	}
	pids := []int{readPID(t, pidFiles[0]), readPID(t, pidFiles[1])}
	ps, err := srv.AllPanes(context.Background())
	if err != nil || len(ps) != 2 {
		t.Fatalf("panes on %s: %+v, %v; want the 2 teammates", srv, ps, err)
	}
	got := map[string]string{}
	for _, p := range ps {
		got[p.ID] = p.Agent + " " + p.Title
	}
	if got[ids[0]] != "alice@crew alice" || got[ids[1]] != "zo-@crew zo-" {
		t.Fatalf("panes carry %v; want alice and zo- (zoë as stored) marked and titled", got)
	}
	// A status from cron reads those panes too.
	if out := w.must(t, "status", "--team", crew); strings.Count(out, "alive") < 3 {
		t.Errorf("status under env -i:\n%s", out)
	}

	// A lock left by a server killed from outside paneteam.
	if err := os.WriteFile(filepath.Join(w.sockets, "paneteam-1.paneteam-lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	lead.Process.Kill()
	lead.Wait()
	out, errs, code := w.run(t, "cleanup", "--orphans", "--json")
	if code != 0 {
		t.Fatalf("cleanup --orphans under env -i: exit %d\n%s\n%s", code, out, errs)
	}
	for _, pid := range pids {
		processGone(t, pid)
	}
	if _, err := srv.Run(context.Background(), "list-panes", "-a"); !errors.Is(err, tmux.ErrNoServer) {
		t.Errorf("the dead lead's server still runs: %v", err)
	}
	if _, err := os.Stat(team.Team{Root: w.root, Name: crew}.Dir()); !os.IsNotExist(err) {
		t.Errorf("the orphan team's folder is still there (%v)\n%s", err, out)
	}
	left, _ := filepath.Glob(filepath.Join(w.sockets, "*"))
	if len(left) != 0 {
		t.Errorf("left in tmux's socket folder: %q", left)
	}
}

// TestCronSpawnInterruptedLeavesNothing stops a spawn-pane started under
// env -i (SIGTERM, as a timer's timeout would) after its command started:
// no command, server, socket or member may remain.
func TestCronSpawnInterruptedLeavesNothing(t *testing.T) {
	w := newCronWorld(t)
	lead := leadProcess(t)
	srv := w.server(t, lead.Process.Pid, "crew")
	crew := w.must(t, "team-create", "crew", "--leader-pid", strconv.Itoa(lead.Process.Pid))
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := w.command(append([]string{"spawn-pane", "--team", crew, "--name", "alice", "--startup-check", "60s", "--"}, pidScript(pidFile)...)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, pidFile)
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err == nil {
		t.Fatalf("an interrupted spawn-pane succeeded:\n%s", errb.String())
	}
	processGone(t, pid)
	if _, err := srv.Run(context.Background(), "list-panes", "-a"); !errors.Is(err, tmux.ErrNoServer) {
		t.Errorf("the private server still runs: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(w.sockets, "*")); len(left) != 0 {
		t.Errorf("left in tmux's socket folder: %q", left)
	}
	if got := members(t, w.root, crew); got != "team-lead" {
		t.Errorf("members after the failed spawn: %s", got)
	}
}

// TestNoHomeNeedsARoot: without HOME (cron, systemd) paneteam cannot find
// ~/.claude and says how to name a root.
func TestNoHomeNeedsARoot(t *testing.T) {
	w := newCronWorld(t)
	w.vars = []string{"PATH=/usr/bin:/bin"}
	_, errs, code := w.run(t, "cleanup", "--orphans")
	if code != ExitFailure || !strings.Contains(errs, "$HOME is not defined (set --root or PANETEAM_ROOT)") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

// TestBackendIsNotStickyAfterInProcess: one teammate asked for in-process
// does not send the next one (no --backend) there.
func TestBackendIsNotStickyAfterInProcess(t *testing.T) {
	w := newCronWorld(t)
	lead := leadProcess(t)
	srv := w.server(t, lead.Process.Pid, "crew")
	crew := w.must(t, "team-create", "crew", "--leader-pid", strconv.Itoa(lead.Process.Pid))
	t.Cleanup(func() { w.run(t, "cleanup", "--team", crew, "--force") })
	spawn := func(name string, flags ...string) spawnResult {
		args := append([]string{"spawn-pane", "--team", crew, "--name", name, "--json"}, flags...)
		out := w.must(t, append(append(args, "--"), pidScript(filepath.Join(t.TempDir(), "pid"))...)...)
		var res spawnResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("spawn-pane --json printed %q: %v", out, err)
		}
		return res
	}
	if got := spawn("alice", "--backend", "in-process").Backend; got != team.BackendInProcess {
		t.Fatalf("alice went to %s, want in-process as asked", got)
	}
	bob := spawn("bob")
	if bob.Backend != team.BackendTmux {
		t.Fatalf("bob (no --backend, tmux installed, outside tmux) went to %s, want tmux", bob.Backend)
	}
	if _, err := srv.PaneByID(context.Background(), bob.PaneID); err != nil {
		t.Fatalf("bob's pane on the private server: %v", err)
	}
}
