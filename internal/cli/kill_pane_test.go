package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

func TestHideShowKill(t *testing.T) {
	s := spInside(t)
	marks := filepath.Join(t.TempDir(), "marks")
	alice := s.spawn("alice", marks).PaneID
	bob := s.spawn("bob", marks).PaneID

	s.mustRun("hide", "--team", s.name, "--name", "bob")
	if p := s.panes()[bob]; p.Session != tmux.HiddenSession {
		t.Fatalf("bob's pane is in session %q after hide, want %s", p.Session, tmux.HiddenSession)
	}
	if got := s.config().HiddenPaneIDs; len(got) != 1 || got[0] != bob {
		t.Errorf("hiddenPaneIds = %v, want [%s]", got, bob)
	}
	checkMainVertical(t, s, []string{alice})

	s.mustRun("show", "--team", s.name, "--name", "bob")
	checkMainVertical(t, s, []string{alice, bob})
	if got := s.config().HiddenPaneIDs; len(got) != 0 {
		t.Errorf("hiddenPaneIds = %v after show, want none", got)
	}

	tm, _, _ := team.Open(s.root, s.name)
	task, err := tm.Tasks(lockOptsDefault()).Create(context.Background(), team.NewTask{Subject: "Write the tests", Owner: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	out := s.mustRun("kill-pane", "--team", s.name, "--name", "alice")
	if !strings.Contains(out, "alice@crew") || !strings.Contains(out, task.ID) {
		t.Errorf("kill-pane printed %q, want the agent and the released task %s", out, task.ID)
	}
	if _, ok := s.panes()[alice]; ok {
		t.Error("alice's pane survived kill-pane")
	}
	if s.config().Member("alice") != nil {
		t.Error("alice is still a member after kill-pane")
	}
	if got, _ := tm.Tasks(lockOptsDefault()).Get(task.ID); got.Owner != "" || got.Status != team.StatusPending {
		t.Errorf("alice's task after kill-pane: owner %q status %q, want unowned and pending", got.Owner, got.Status)
	}
	checkMainVertical(t, s, []string{bob})
}

// TestKillHiddenAndWorktree: kill-pane leaves nothing of the teammate
// behind, as shutdown does: a hidden pane is killed and leaves
// hiddenPaneIds, and a worktree with nothing unsaved is removed.
func TestKillHiddenAndWorktree(t *testing.T) {
	s := spInside(t)
	repo := testutil.GitRepo(t)
	marks := filepath.Join(t.TempDir(), "marks")
	bob := s.spawn("bob", marks, "--cwd", repo, "--worktree").PaneID
	tree := s.config().Member("bob").WorktreePath
	if tree == "" {
		t.Fatal("bob has no worktree recorded")
	}
	s.mustRun("hide", "--team", s.name, "--name", "bob")
	out := s.mustRun("kill-pane", "--team", s.name, "--name", "bob")
	if !strings.Contains(out, "worktree "+tree+" removed") {
		t.Errorf("kill-pane printed %q, want the removed worktree %s named", out, tree)
	}
	if _, ok := s.panes()[bob]; ok {
		t.Error("bob's hidden pane survived kill-pane")
	}
	cfg := s.config()
	if cfg.Member("bob") != nil || len(cfg.HiddenPaneIDs) != 0 {
		t.Errorf("after kill-pane: member %v, hiddenPaneIds %v; want neither", cfg.Member("bob"), cfg.HiddenPaneIDs)
	}
	if _, err := os.Stat(tree); err == nil {
		t.Error("clean worktree left after kill-pane")
	}
}

// TestOnlyOwnPanesAreTouched points a member at a pane paneteam did not
// create (the lead's): kill, hide and liveness must leave it alone.
func TestOnlyOwnPanesAreTouched(t *testing.T) {
	s := spInside(t)
	bob := s.spawn("bob", filepath.Join(t.TempDir(), "marks")).PaneID
	tm, _, _ := team.Open(s.root, s.name)
	if _, err := tm.Update(context.Background(), lockOptsDefault(), func(c *team.Config) error {
		c.Member("bob").TmuxPaneID = s.lead
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"kill-pane", "hide"} {
		_, errOut, code := s.run(cmd, "--team", s.name, "--name", "bob")
		if code == 0 || !strings.Contains(errOut, "leaving it alone") {
			t.Errorf("%s on a pane that is not bob's: exit %d, stderr %q", cmd, code, errOut)
		}
	}
	ps := s.panes()
	if _, ok := ps[s.lead]; !ok || ps[s.lead].Session == tmux.HiddenSession {
		t.Fatal("the lead's pane was killed or hidden")
	}
	if _, ok := ps[bob]; !ok {
		t.Fatal("bob's real pane went away")
	}
	cfg := s.config()
	b, err := backend.ForMember(backendEnv(SystemEnv()), cfg, cfg.Member("bob"))
	if err != nil {
		t.Fatal(err)
	}
	if alive, err := b.Alive(context.Background(), cfg, cfg.Member("bob")); alive || err != nil {
		t.Errorf("Alive on a pane that is not bob's = %v, %v; want false", alive, err)
	}
}

func TestAliveFollowsThePane(t *testing.T) {
	s := spInside(t)
	pane := s.spawn("bob", filepath.Join(t.TempDir(), "marks")).PaneID
	cfg := s.config()
	m := cfg.Member("bob")
	b, err := backend.ForMember(backendEnv(SystemEnv()), cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if alive, err := b.Alive(ctx, cfg, m); !alive || err != nil {
		t.Fatalf("Alive = %v, %v for a running pane", alive, err)
	}
	if _, err := s.srv.Run(ctx, "kill-pane", "-t", pane); err != nil {
		t.Fatal(err)
	}
	if alive, err := b.Alive(ctx, cfg, m); alive || err != nil {
		t.Errorf("Alive = %v, %v after the pane was closed; want false", alive, err)
	}
}

// TestSpawnOutsideTmuxUsesAPrivateServer runs with no $TMUX: teammates go
// to a server of paneteam's own, named for the leader's pid and the team, under
// TMUX_TMPDIR (a test folder), tiled in session "paneteam".
func TestSpawnOutsideTmuxUsesAPrivateServer(t *testing.T) {
	testutil.RequireTool(t, "tmux")
	tmpdir := testutil.ShortTempDir(t)
	root := testutil.Root(t)
	s := &spTeam{t: t, root: root, name: "solo"}
	s.vars = testutil.Env("PANETEAM_ROOT="+root, "TMUX_TMPDIR="+tmpdir, "PANETEAM_TMUX_CONFIG=/dev/null")
	pid := os.Getpid()
	s.mustRun("team-create", "solo", "--leader-pid", strconv.Itoa(pid))
	real, _ := filepath.EvalSymlinks(tmpdir)
	sock := filepath.Join(real, "tmux-"+strconv.Itoa(os.Getuid()), backend.PrivateServerName(pid, team.Team{Root: root, Name: "solo"}))
	s.srv = tmux.Server{Socket: sock}
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })

	marks := filepath.Join(t.TempDir(), "marks")
	var ids []string
	for _, n := range []string{"a", "b", "c"} {
		ids = append(ids, s.spawn(n, marks).PaneID)
	}
	cfg := s.config()
	if cfg.Paneteam == nil || !cfg.Paneteam.TmuxPrivate || cfg.Paneteam.TmuxSocket != sock {
		t.Fatalf("team record %+v, want the private socket %s", cfg.Paneteam, sock)
	}
	ps := s.panes()
	if len(ps) != 3 {
		t.Fatalf("private server has %d panes, want 3 (no placeholder or shell left over)", len(ps))
	}
	area := 0
	for _, id := range ids {
		p := ps[id]
		if p.Session != backend.PrivateSession || p.WindowID != ps[ids[0]].WindowID {
			t.Errorf("pane %s is in %s %s, want one window of session %s", id, p.Session, p.WindowID, backend.PrivateSession)
		}
		if area == 0 {
			area = p.Area()
		}
		if p.Area() < area/3 || p.Area() > area*3 {
			t.Errorf("pane %s is %dx%d: not tiled evenly with the first (%d cells)", id, p.Width, p.Height, area)
		}
	}
	if lines := spWaitLines(t, marks, 3); len(lines) != 3 {
		t.Errorf("commands ran %d times, want 3: %q", len(lines), lines)
	}

	// The server vanishes: attach says so instead of starting a new one.
	s.srv.Run(context.Background(), "kill-server")
	_, errOut, code := s.run("attach", "--team", "solo")
	if code == 0 || !strings.Contains(errOut, "not running") {
		t.Errorf("attach to a vanished server: exit %d, stderr %q", code, errOut)
	}
}

// TestSpawnIntoSlowTypeaheadFlushingShell gives the server a default
// shell that starts slowly and then discards pending input, the case that
// makes typing a command into a new pane lose it. Claude Code's method
// (split, 200 ms, send-keys) loses its command on this server; spawn-pane
// types nothing, so its command runs, once.
func TestSpawnIntoSlowTypeaheadFlushingShell(t *testing.T) {
	testutil.RequireTool(t, "bash")
	s := spInside(t)
	dir := t.TempDir()
	rc := filepath.Join(dir, "rc")
	ready := filepath.Join(dir, "ready")
	if err := os.WriteFile(rc, []byte("PS1='$ '\nsleep 1\nwhile read -r -t 0.01 -n 10000 _; do :; done\ntouch "+ready+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.srv.Run(ctx, "set-option", "-g", "default-command", "bash --noprofile --rcfile "+rc+" -i"); err != nil {
		t.Fatal(err)
	}
	marks := filepath.Join(dir, "marks")

	// The reference: Claude Code 2.1.88 types the command after 200 ms.
	ref, err := s.srv.Run(ctx, "split-window", "-d", "-t", s.lead, "-P", "-F", "#{pane_id}")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // Claude Code's fixed delay, reproduced
	s.srv.Run(ctx, "send-keys", "-t", ref, "echo typed >> "+marks, "Enter")
	// ready is empty: it exists once the shell has flushed typeahead.
	testutil.Eventually(t, 15*time.Second, "the reference shell to start", func() bool {
		_, err := os.Stat(ready)
		return err == nil
	})
	s.srv.Run(ctx, "send-keys", "-t", ref, "echo probe >> "+marks, "Enter")
	if lines := spWaitLines(t, marks, 1); strings.Join(lines, ",") != "probe" {
		t.Fatalf("the flushing shell did not discard typeahead (marks %q): this test proves nothing here", lines)
	}

	s.spawn("alice", marks)
	lines := spWaitLines(t, marks, 2)
	if strings.Join(lines, ",") != "probe,alice crew "+s.root {
		t.Errorf("marks = %q, want the probe then alice's command exactly once", lines)
	}
}

// checkTiled asserts the lead's window is laid out as tmux's tiled layout
// would lay it out: applying tiled again changes nothing.
func checkTiled(t *testing.T, s *spTeam, when string) {
	t.Helper()
	ctx := context.Background()
	before, err := s.srv.Run(ctx, "display-message", "-p", "-t", s.lead, "#{window_layout}")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.srv.Run(ctx, "select-layout", "-t", s.lead, "tiled"); err != nil {
		t.Fatal(err)
	}
	if tiled, _ := s.srv.Run(ctx, "display-message", "-p", "-t", s.lead, "#{window_layout}"); tiled != before {
		t.Errorf("%s: the window is laid out %s, not tiled (%s)", when, before, tiled)
	}
}

// A layout asked for once is the team's: spawns without --layout, kill-pane,
// hide and show all keep it, until another is asked for.
func TestChosenLayoutIsKeptForTheTeam(t *testing.T) {
	s := spInside(t)
	marks := filepath.Join(t.TempDir(), "marks")
	s.spawn("alice", marks, "--layout", "tiled")
	bob := s.spawn("bob", marks).PaneID
	s.spawn("carol", marks)
	checkTiled(t, s, "after three spawns, the first with --layout tiled")
	if meta := s.config().Paneteam; meta == nil || meta.Layout != "tiled" {
		t.Fatalf("team record %+v, want layout tiled kept", meta)
	}
	s.mustRun("kill-pane", "--team", s.name, "--name", "carol")
	checkTiled(t, s, "after kill-pane")
	s.mustRun("hide", "--team", s.name, "--name", "bob")
	checkTiled(t, s, "after hide")
	s.mustRun("show", "--team", s.name, "--name", "bob")
	checkTiled(t, s, "after show")

	// Asking for main-vertical makes it the team's layout from then on.
	s.mustRun("show", "--team", s.name, "--name", "bob") // already shown: nothing to do
	s.mustRun("hide", "--team", s.name, "--name", "bob")
	s.mustRun("show", "--team", s.name, "--name", "bob", "--layout", "main-vertical", "--lead-percent", "30")
	alice := s.config().Member("alice").TmuxPaneID
	checkMainVertical(t, s, []string{alice, bob})
	if meta := s.config().Paneteam; meta.Layout != "main-vertical" || meta.LeadPercent != 30 {
		t.Fatalf("team record %+v after show --layout main-vertical", meta)
	}
}
