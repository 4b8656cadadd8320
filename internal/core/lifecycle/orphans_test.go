package lifecycle

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func reap(t *testing.T, root, sockets string, dry bool) *ReapResult {
	t.Helper()
	res, err := opts().Reap(context.Background(), root, ReapOptions{DryRun: dry, SocketDir: sockets})
	if err != nil {
		t.Fatalf("Reap: %v", err)
	}
	return res
}

func orphanNames(r *ReapResult) string {
	var n []string
	for _, o := range r.Orphans {
		n = append(n, o.Team)
	}
	return strings.Join(n, ",")
}

func TestReapTeamsWhoseLeadIsGone(t *testing.T) {
	root := testutil.Root(t)
	me := os.Getpid()
	start, _ := proc.StartTime(me)
	dead := newTeamLedBy(t, root, "dead", deadPID(t), "12345")
	reused := newTeamLedBy(t, root, "reused", me, start+"0") // same pid, another start
	live := newTeamLedBy(t, root, "live", me, start)
	for _, tm := range []team.Team{dead, reused, live} {
		addMembers(t, tm, "alice")
	}
	// A team Claude Code made records no lead process: never ours to judge.
	claude := team.Team{Root: root, Name: "claude"}
	os.MkdirAll(claude.Dir(), 0o700)
	os.WriteFile(claude.ConfigPath(), []byte(`{"name":"claude","createdAt":1,"leadAgentId":"team-lead@claude","members":[]}`), 0o600)
	sockets := filepath.Join(testutil.ShortTempDir(t), "none")

	plan := reap(t, root, sockets, true)
	if orphanNames(plan) != "dead,reused" {
		t.Fatalf("dry run found orphans %q", orphanNames(plan))
	}
	for _, tm := range []team.Team{dead, reused, live, claude} {
		if !exists(tm.ConfigPath()) {
			t.Fatalf("dry run deleted %s", tm.Name)
		}
	}

	res := reap(t, root, sockets, false)
	if orphanNames(res) != "dead,reused" {
		t.Fatalf("orphans %q", orphanNames(res))
	}
	for _, tm := range []team.Team{dead, reused} {
		if exists(tm.Dir()) || exists(tm.TasksDir()) {
			t.Errorf("orphan %s not deleted", tm.Name)
		}
	}
	for _, tm := range []team.Team{live, claude} {
		if !exists(tm.ConfigPath()) {
			t.Errorf("%s deleted", tm.Name)
		}
	}
	if len(teamtest.Load(t, live).Members) != 2 {
		t.Fatal("live team changed")
	}
	// Idempotent: nothing left to do.
	if again := reap(t, root, sockets, false); len(again.Orphans) != 0 {
		t.Fatalf("second run found %q", orphanNames(again))
	}
}

func TestReapOlderThanSparesRecentTeams(t *testing.T) {
	root := testutil.Root(t)
	tm := newTeamLedBy(t, root, "fresh", deadPID(t), "1")
	res, err := opts().Reap(context.Background(), root, ReapOptions{OlderThan: time.Hour, SocketDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Orphans) != 0 || !exists(tm.ConfigPath()) {
		t.Fatal("a team active a moment ago was reaped despite --older-than")
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Why, "older-than") {
		t.Fatalf("skip reason: %+v", res.Skipped)
	}
}

// startServer starts a tmux server on the socket at path, with a session
// whose one pane runs a shell.
func startServer(t *testing.T, path string) tmux.Server {
	t.Helper()
	testutil.RequireTool(t, "tmux")
	srv := tmux.Server{Socket: path, Config: "/dev/null"}
	if _, err := srv.Run(context.Background(), "new-session", "-d", "-s", "s", "-x", "80", "-y", "24"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", path, "kill-server").Run() })
	return srv
}

func running(srv tmux.Server) bool {
	_, err := srv.Run(context.Background(), "list-sessions")
	return err == nil
}

func socketDir(t *testing.T) string {
	t.Helper()
	// The layout tmux uses under $TMUX_TMPDIR.
	dir := filepath.Join(testutil.ShortTempDir(t), fmt.Sprintf("tmux-%d", os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReapPrivateServersOfGoneLeads(t *testing.T) {
	dir := socketDir(t)
	if got := SocketDir(func(k string) string {
		if k == "TMUX_TMPDIR" {
			return filepath.Dir(dir)
		}
		return ""
	}); got != dir {
		t.Fatalf("SocketDir = %s, want %s", got, dir)
	}
	gone := startServer(t, filepath.Join(dir, fmt.Sprintf("claude-swarm-%d", deadPID(t))))
	goneOurs := startServer(t, filepath.Join(dir, fmt.Sprintf("paneteam-%d", deadPID(t))))
	tagPanes(t, goneOurs)
	liveLead := startServer(t, filepath.Join(dir, fmt.Sprintf("claude-swarm-%d", os.Getpid())))
	other := startServer(t, filepath.Join(dir, fmt.Sprintf("work-%d", deadPID(t))))
	reused := reusedPidServer(t, dir)
	root := testutil.Root(t)

	plan := reap(t, root, dir, true)
	if len(plan.Servers) != 3 {
		t.Fatalf("dry run plan: %+v", plan.Servers)
	}
	for _, s := range []tmux.Server{gone, goneOurs, reused, liveLead, other} {
		if !running(s) {
			t.Fatalf("dry run stopped %s", s.Socket)
		}
	}
	res := reap(t, root, dir, false)
	if len(res.Servers) != 3 {
		t.Fatalf("servers: %+v", res.Servers)
	}
	for _, s := range res.Servers {
		if !s.Stopped {
			t.Errorf("not stopped: %+v", s)
		}
	}
	if running(gone) || running(goneOurs) || running(reused) || exists(gone.Socket) {
		t.Fatal("server of a gone lead still running")
	}
	if !running(liveLead) || !running(other) {
		t.Fatal("a live lead's server, or a server not named for a lead, was stopped")
	}
}

// reusedPidServer starts a server named claude-swarm-<pid> where pid
// belongs to a process started after the server: the lead it was named
// for is gone and its pid reused. (The socket is renamed once the process
// exists; clients find a server by its socket path.)
func reusedPidServer(t *testing.T, dir string) tmux.Server {
	t.Helper()
	srv := startServer(t, filepath.Join(dir, "starting"))
	pidOut, err := srv.Run(context.Background(), "display-message", "-p", "#{pid}")
	if err != nil {
		t.Fatal(err)
	}
	var srvPID int
	fmt.Sscan(pidOut, &srvPID)
	// Start times are in clock ticks: wait for a process started in a
	// later tick than the server.
	testutil.Eventually(t, 10*time.Second, "a process started after the server", func() bool {
		later := exec.Command("sleep", "60")
		if err := later.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { later.Process.Kill(); later.Wait() })
		if !startedAfter(later.Process.Pid, srvPID) {
			later.Process.Kill()
			return false
		}
		final := filepath.Join(dir, fmt.Sprintf("claude-swarm-%d", later.Process.Pid))
		if err := os.Rename(srv.Socket, final); err != nil {
			t.Fatal(err)
		}
		srv.Socket = final
		t.Cleanup(func() { exec.Command("tmux", "-S", final, "kill-server").Run() })
		return true
	})
	return srv
}

func TestReapKeepsWorktreeWithWorkAndItsTeam(t *testing.T) {
	ctx := context.Background()
	root := testutil.Root(t)
	repo := testutil.GitRepo(t)
	tm := newTeamLedBy(t, root, "gone", deadPID(t), "1")
	addMembers(t, tm, "alice", "bob")
	paths := map[string]string{}
	state, err := provenance.StateDir(opts().Backend.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"alice", "bob"} {
		wt, err := worktree.GiveVia(ctx, worktree.OpenRecords(state), repo, root, tm.Name, n, 0, worktree.ViaSpawnPane)
		if err != nil {
			t.Fatal(err)
		}
		paths[n] = wt.Path
	}
	if _, err := tm.Update(ctx, opts().Lock, func(c *team.Config) error {
		for n, p := range paths {
			c.Member(n).WorktreePath = p
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(paths["alice"], "unsaved.go"), []byte("package x\n"), 0o644)

	res, err := opts().Reap(ctx, root, ReapOptions{SocketDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), paths["alice"]) {
		t.Fatalf("Reap error %v does not say where the kept worktree is", err)
	}
	if len(res.Orphans) != 1 || res.Orphans[0].Deleted {
		t.Fatalf("orphans: %+v", res.Orphans)
	}
	if !exists(filepath.Join(paths["alice"], "unsaved.go")) {
		t.Fatal("work in a worktree was deleted")
	}
	if exists(paths["bob"]) {
		t.Fatal("clean worktree not removed")
	}
	// The team stays, with only the member whose worktree was kept, so the
	// next run tries again.
	cfg := teamtest.Load(t, tm)
	if names := strings.Join(cfg.MemberNames(), ","); names != "team-lead,alice" || cfg.Member("alice").Active() {
		t.Fatalf("kept team: %s (alice active %v)", names, cfg.Member("alice").Active())
	}
	os.Remove(filepath.Join(paths["alice"], "unsaved.go"))
	if again := reap(t, root, t.TempDir(), false); len(again.Orphans) != 1 || !again.Orphans[0].Deleted {
		t.Fatalf("second run: %+v", again.Orphans)
	}
	if exists(paths["alice"]) || exists(tm.Dir()) {
		t.Fatal("second run did not finish the job")
	}
}

// tagPanes marks every pane of srv as paneteam's, as spawn-pane does.
func tagPanes(t *testing.T, srv tmux.Server) {
	t.Helper()
	out, err := srv.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_id}")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range strings.Fields(out) {
		if _, err := srv.Run(context.Background(), "set-option", "-p", "-t", id, tmux.AgentOption, "x@gone"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReapLeavesPaneteamServerHoldingTheUsersPane(t *testing.T) {
	dir := socketDir(t)
	srv := startServer(t, filepath.Join(dir, fmt.Sprintf("paneteam-%d", deadPID(t))))
	tagPanes(t, srv)
	users, err := srv.Run(context.Background(), "split-window", "-d", "-P", "-F", "#{pane_id}")
	if err != nil {
		t.Fatal(err)
	}
	res, err := opts().Reap(context.Background(), testutil.Root(t), ReapOptions{SocketDir: dir})
	if err == nil || !strings.Contains(err.Error(), users) {
		t.Fatalf("Reap = %v; want the user's pane %s named", err, users)
	}
	if len(res.Servers) != 1 || res.Servers[0].Stopped || !running(srv) {
		t.Fatalf("server with the user's pane stopped: %+v", res.Servers)
	}
}

// A socket folder tmux itself would refuse (a link planted before the
// user's first tmux, a folder others may write) is not scanned: the
// servers and lock files where it leads are left, and the error names it.
func TestReapLeavesASocketFolderTmuxWouldRefuse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, real string) string
	}{
		{"a link", func(t *testing.T, real string) string {
			link := filepath.Join(testutil.ShortTempDir(t), fmt.Sprintf("tmux-%d", os.Getuid()))
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			return link
		}},
		{"open to others", func(t *testing.T, real string) string {
			if err := os.Chmod(real, 0o777); err != nil {
				t.Fatal(err)
			}
			return real
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			real := socketDir(t)
			gone := startServer(t, filepath.Join(real, fmt.Sprintf("claude-swarm-%d", deadPID(t))))
			lock := filepath.Join(real, "gone"+tmux.LockSuffix)
			if err := os.WriteFile(lock, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			dir := tc.plant(t, real)
			_, err := opts().Reap(context.Background(), testutil.Root(t), ReapOptions{SocketDir: dir})
			if err == nil || !strings.Contains(err.Error(), dir) {
				t.Fatalf("Reap: %v, want an error naming %s", err, dir)
			}
			if !running(gone) || !exists(lock) {
				t.Fatal("cleanup stopped a server or removed a lock in a folder tmux would refuse")
			}
		})
	}
}

// A gone lead's server caught between its last session closing and its
// exit has no pane at all (tmux answers "no current target"): it is
// stopped, not left running with that answer as the reason.
func TestReapStopsAServerWithNoSessionLeft(t *testing.T) {
	dir := socketDir(t)
	srv := startServer(t, filepath.Join(dir, fmt.Sprintf("paneteam-%d", deadPID(t))))
	// exit-empty off holds it where a closing server passes by.
	if _, err := srv.Run(context.Background(), "set-option", "-g", "exit-empty", "off"); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(context.Background(), "kill-session", "-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(context.Background(), "kill-session"); err != nil {
		t.Fatal(err)
	}
	if !running(srv) {
		t.Fatal("the server exited with its last session: the test needs it held")
	}
	res, err := opts().Reap(context.Background(), testutil.Root(t), ReapOptions{SocketDir: dir})
	if err != nil {
		t.Fatalf("Reap: %v", err)
	}
	if len(res.Servers) != 1 || !res.Servers[0].Stopped || running(srv) {
		t.Fatalf("a server with no session left was not stopped: %+v", res.Servers)
	}
}
