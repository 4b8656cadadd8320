package lifecycle

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// age makes every file of a team look last changed two hours ago.
func age(t *testing.T, root, name string) {
	t.Helper()
	old := time.Now().Add(-2 * time.Hour)
	for _, d := range []string{filepath.Join(root, "teams", name), filepath.Join(root, "tasks", name)} {
		filepath.WalkDir(d, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}
}

// taggedPane makes a pane on srv as paneteam makes one: @paneteam-agent
// set, PANETEAM_* in its command's environment.
func taggedPane(t *testing.T, srv tmux.Server, agent, root string) string {
	t.Helper()
	ctx := context.Background()
	name, teamName, _ := strings.Cut(agent, "@")
	pane, err := srv.Run(ctx, "split-window", "-d", "-t", "guard", "-e", "PANETEAM_ROOT="+root, "-e", "PANETEAM_TEAM="+teamName,
		"-e", "PANETEAM_AGENT="+name, "-P", "-F", "#{pane_id}", "sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(ctx, "set-option", "-p", "-t", pane, tmux.AgentOption, agent); err != nil {
		t.Fatal(err)
	}
	srv.Run(ctx, "select-layout", "-t", "guard", "tiled")
	return pane
}

func hasPaneOn(srv tmux.Server, pane string) bool {
	_, err := srv.PaneByID(context.Background(), pane)
	return err == nil
}

func TestReapClaudeTeamsByClaudesOwnTest(t *testing.T) {
	srv := testutil.TmuxServer(t)
	root := testutil.Root(t)
	ro := ReapOptions{SocketDir: testutil.ShortTempDir(t)}
	live, liveLead := testutil.LiveClaudeLead(t)
	_ = live

	// A crashed session with a pane paneteam made for it, and Claude's own
	// teammates (one in its process, one in a pane Claude made).
	claudesPane, err := srv.Run(context.Background(), "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	ourPane := taggedPane(t, srv, "w@session-dead0002", root)
	w := testutil.Member{"name": "w", "tmuxPaneId": ourPane, "backendType": "tmux", "paneteam": map[string]any{"tmuxSocket": srv.Socket}}
	testutil.ClaudeTeam(t, root, "session-dead0002", testutil.DeadClaudeLead(t), w,
		testutil.ClaudeInProcessTeammate("bob"), testutil.ClaudePaneTeammate("carol", claudesPane))
	os.WriteFile(filepath.Join(root, "tasks", "session-dead0002", "1.json"), []byte(`{"id":"1"}`), 0o600)

	wrong := liveLead
	ws := *liveLead.ProcStart + "9"
	wrong.ProcStart = &ws
	testutil.ClaudeTeam(t, root, "session-wrong005", wrong)
	noStartOld := liveLead
	noStartOld.ProcStart, noStartOld.ClaimedAt = nil, time.Now().Add(-time.Hour).UnixMilli()
	testutil.ClaudeTeam(t, root, "session-noproc06", noStartOld)
	noStartNew := liveLead
	noStartNew.ProcStart, noStartNew.ClaimedAt = nil, time.Now().Add(time.Second).UnixMilli()
	testutil.ClaudeTeam(t, root, "session-noproc07", noStartNew)
	testutil.ClaudeTeam(t, root, "session-live0001", liveLead)
	other := testutil.DeadClaudeLead(t)
	other.PIDSpace = "elsewhere#pid:[4026531836]"
	testutil.ClaudeTeam(t, root, "session-other004", other)
	for _, n := range []string{"session-dead0002", "session-wrong005", "session-noproc06", "session-noproc07", "session-live0001", "session-other004"} {
		age(t, root, n)
	}
	testutil.ClaudeTeam(t, root, "session-recent03", testutil.DeadClaudeLead(t)) // changed just now

	reaped := []string{"session-dead0002", "session-noproc06", "session-wrong005"}
	kept := []string{"session-live0001", "session-noproc07", "session-other004", "session-recent03"}
	check := func(res *ReapResult) {
		t.Helper()
		var got []string
		for _, o := range res.Orphans {
			got = append(got, o.Team)
		}
		if strings.Join(got, " ") != strings.Join(reaped, " ") {
			t.Fatalf("reaped %v, want %v; skipped %+v", got, reaped, res.Skipped)
		}
		skipped := map[string]string{}
		for _, s := range res.Skipped {
			skipped[s.Team] = s.Why
		}
		for _, k := range kept {
			if skipped[k] == "" {
				t.Errorf("%s not reported as left alone: %+v", k, res.Skipped)
			}
		}
		if !strings.Contains(skipped["session-other004"], "another pid namespace") || !strings.Contains(skipped["session-recent03"], "claude --resume") {
			t.Errorf("reasons: %+v", skipped)
		}
	}

	dry := ro
	dry.DryRun = true
	res, err := opts().Reap(context.Background(), root, dry)
	if err != nil {
		t.Fatal(err)
	}
	check(res)
	if d := res.Orphans[0]; len(d.Members) != 1 || d.Members[0].Name != "w" {
		t.Fatalf("the dry run plans to close %+v, want only w's pane (Claude's own are Claude's)", d.Members)
	}
	for _, n := range reaped {
		if !exists(filepath.Join(root, "teams", n, "config.json")) {
			t.Fatalf("dry run deleted %s", n)
		}
	}
	if !hasPaneOn(srv, ourPane) {
		t.Fatal("dry run closed a pane")
	}

	res, err = opts().Reap(context.Background(), root, ro)
	if err != nil {
		t.Fatal(err)
	}
	check(res)
	for _, n := range reaped {
		if exists(filepath.Join(root, "teams", n)) || exists(filepath.Join(root, "tasks", n)) {
			t.Errorf("%s's folders are still there", n)
		}
	}
	for _, n := range kept {
		if !exists(filepath.Join(root, "teams", n, "config.json")) {
			t.Errorf("%s was deleted", n)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(root, "teams", "*.deleted-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if hasPaneOn(srv, ourPane) {
		t.Error("the pane paneteam made for the crashed session is still open")
	}
	if !hasPaneOn(srv, claudesPane) {
		t.Error("a pane Claude Code made was closed")
	}
}

// The decision is taken under config.json.lock: while Claude Code holds
// it, nothing is removed.
func TestReapClaudeTeamWaitsForClaudesLock(t *testing.T) {
	root := testutil.Root(t)
	testutil.ClaudeTeam(t, root, "session-dead0002", testutil.DeadClaudeLead(t))
	age(t, root, "session-dead0002")
	cfgPath := filepath.Join(root, "teams", "session-dead0002", "config.json")
	unlock, err := lockfile.Lock(context.Background(), cfgPath, lockfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	o := Options{Lock: lockfile.Options{Timeout: 300 * time.Millisecond}}
	res, err := o.Reap(context.Background(), root, ReapOptions{SocketDir: testutil.ShortTempDir(t)})
	if err == nil || len(res.Orphans) != 1 || res.Orphans[0].Error == "" {
		t.Fatalf("reap under Claude's lock: %v %+v", err, res)
	}
	if !exists(cfgPath) {
		t.Fatal("deleted while Claude Code held config.json.lock")
	}
}

// --older-than sets the grace period; 0 means none.
func TestReapClaudeGrace(t *testing.T) {
	root := testutil.Root(t)
	testutil.ClaudeTeam(t, root, "session-dead0002", testutil.DeadClaudeLead(t))
	res, err := opts().Reap(context.Background(), root, ReapOptions{SocketDir: testutil.ShortTempDir(t), ClaudeGrace: -1})
	if err != nil || len(res.Orphans) != 1 || exists(filepath.Join(root, "teams", "session-dead0002")) {
		t.Fatalf("no grace: %v %+v", err, res)
	}
}

// Claude Code deletes its session team at exit; the panes paneteam made
// for it are closed by the next reap, and only those.
func TestReapPanesOfTeamsThatEnded(t *testing.T) {
	srv := testutil.TmuxServer(t)
	root := testutil.Root(t)
	sockDir := filepath.Dir(srv.Socket)
	os.WriteFile(srv.Socket+".paneteam-lock", nil, 0o600)
	teamtest.OnRoot(t, root, "alive", team.CreateOptions{})
	gone := taggedPane(t, srv, "w@session-gone0001", root)
	otherRoot := taggedPane(t, srv, "x@session-gone0001", testutil.Root(t))
	live := taggedPane(t, srv, "y@alive", root)
	mismatch := taggedPane(t, srv, "z@session-gone0002", root)
	srv.Run(context.Background(), "set-option", "-p", "-t", mismatch, tmux.AgentOption, "q@session-gone0002")
	untagged, _ := srv.Run(context.Background(), "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "sleep 600")

	res, err := opts().Reap(context.Background(), root, ReapOptions{SocketDir: sockDir, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Panes) != 2 || !res.Panes[0].Closed && !res.Panes[1].Closed {
		t.Fatalf("dry run: %+v", res.Panes)
	}
	if !hasPaneOn(srv, gone) {
		t.Fatal("dry run closed a pane")
	}
	res, err = opts().Reap(context.Background(), root, ReapOptions{SocketDir: sockDir})
	if err != nil {
		t.Fatal(err)
	}
	if hasPaneOn(srv, gone) {
		t.Errorf("the pane of a team that ended is still open: %+v", res.Panes)
	}
	for name, p := range map[string]string{"another root's": otherRoot, "a live team's": live, "a pane whose process names another agent": mismatch, "an untagged": untagged} {
		if !hasPaneOn(srv, p) {
			t.Errorf("%s pane %s was closed", name, p)
		}
	}
}

// TestReapSparesAClaudeTeamWhosePaneTeammateRuns: a pane teammate can
// outlive its crashed Claude Code lead; while its pane is seen running,
// its team and tasks stay.
func TestReapSparesAClaudeTeamWhosePaneTeammateRuns(t *testing.T) {
	srv := testutil.TmuxServer(t)
	root := testutil.Root(t)
	pane, err := srv.Run(context.Background(), "split-window", "-d", "-t", "guard", "-P", "-F", "#{pane_id}", "sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	pane = strings.TrimSpace(pane)
	testutil.ClaudeTeam(t, root, "session-carol001", testutil.DeadClaudeLead(t), testutil.ClaudePaneTeammate("carol", pane))
	age(t, root, "session-carol001")
	env := map[string]string{}
	for _, kv := range testutil.TmuxEnv(t, srv, pane) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if env["PANETEAM_STATE_DIR"] == "" {
		env["PANETEAM_STATE_DIR"] = os.Getenv("PANETEAM_STATE_DIR") // the test's own, not HOME's
	}
	o := Options{Backend: backend.Env{Getenv: func(k string) string { return env[k] }}}
	res, err := o.Reap(context.Background(), root, ReapOptions{SocketDir: testutil.ShortTempDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Orphans) != 0 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Why, "carol still runs") {
		t.Fatalf("reaped %+v, skipped %+v; want session-carol001 left alone while carol runs", res.Orphans, res.Skipped)
	}
	if !exists(filepath.Join(root, "teams", "session-carol001", "config.json")) {
		t.Fatal("the team was deleted under its running pane teammate")
	}
	if _, err := srv.Run(context.Background(), "kill-pane", "-t", pane); err != nil {
		t.Fatal(err)
	}
	res, err = o.Reap(context.Background(), root, ReapOptions{SocketDir: testutil.ShortTempDir(t)})
	if err != nil || len(res.Orphans) != 1 {
		t.Fatalf("after carol's pane closed: reaped %+v (%v), skipped %+v; want the team reaped", res.Orphans, err, res.Skipped)
	}
}
