package teamwatch

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/cost"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// quietTeam is a team whose one teammate, alice, runs in a pane of a
// real tmux server as paneteam records one, with a state folder of its
// own; it returns the team and the pane's process id.
func quietTeam(t *testing.T) (team.Team, int) {
	t.Helper()
	srv := testutil.TmuxServer(t)
	t.Setenv("PANETEAM_STATE_DIR", filepath.Join(t.TempDir(), "state"))
	if err := os.MkdirAll(os.Getenv("PANETEAM_STATE_DIR"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out, err := srv.Run(ctx, "new-window", "-d", "-P", "-F", "#{pane_id} #{pane_pid}", "-t", "guard", "sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(out)
	pane, pid := f[0], f[1]
	tm := teamtest.New(t, "crew", team.CreateOptions{})
	id := team.AgentID("alice", tm.Name)
	if _, err := srv.Run(ctx, "set-option", "-p", "-t", pane, tmux.AgentOption, id); err != nil {
		t.Fatal(err)
	}
	teamtest.Add(t, tm, team.Member{Name: "alice", AgentID: id, TmuxPaneID: pane, BackendType: team.BackendTmux,
		Paneteam: &team.MemberMeta{TmuxSocket: srv.Socket}})
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatal(err)
	}
	return tm, n
}

func quietOptions(quiet time.Duration) WatchOptions {
	return WatchOptions{Options: Options{Backend: &backend.Env{Getenv: os.Getenv}}, Poll: 10 * time.Millisecond, QuietPoll: quiet}
}

// readsOver counts the snapshots a watcher of tm takes in the two seconds
// after its first second and a half, nothing in the team changing.
func readsOver(t *testing.T, tm team.Team, opts WatchOptions) int64 {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := NewWatcher(tm, opts)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, _, err := w.Next(ctx); err != nil {
				return
			}
		}
	}()
	defer func() { cancel(); <-done; w.Close() }()
	time.Sleep(1500 * time.Millisecond)
	before := w.reads.Load()
	time.Sleep(2 * time.Second)
	return w.reads.Load() - before
}

// TestQuietWatcherReadsNothing: a watcher whose poll may back off reads
// a quiet team (a live teammate in a real tmux pane) at most once over
// two seconds, where the same watcher polling every 10 ms reads it many
// times.
func TestQuietWatcherReadsNothing(t *testing.T) {
	tm, _ := quietTeam(t)
	if n := readsOver(t, tm, quietOptions(time.Hour)); n > 1 {
		t.Errorf("a quiet watcher read the team %d times in 2 s; want at most 1 (its poll did not back off)", n)
	}
	if n := readsOver(t, tm, quietOptions(0)); n < 20 {
		t.Errorf("without QuietPoll the watcher read the team %d times in 2 s; want 20 or more (the count counts nothing)", n)
	}
}

// TestQuietWatcherSeesAPaneDie: with the poll backed off an hour, the
// teammate's pane process killed is seen at once (its pidfd), not at
// the next poll.
func TestQuietWatcherSeesAPaneDie(t *testing.T) {
	tm, pid := quietTeam(t)
	w := NewWatcher(tm, quietOptions(time.Hour))
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, _, err := w.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Member("alice"); m == nil || m.Pane != PaneAlive {
		t.Fatalf("alice before the kill: %+v, want her pane alive", m)
	}
	if !w.cover.ok {
		t.Fatalf("the watcher would not back off for this team: %+v (problems %q, lead %+v, alice %+v)", w.cover, s.Problems, s.Lead, s.Member("alice"))
	}
	w.cur = time.Hour // as after a quiet hour
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for {
		s, ev, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("alice's pane process was killed and the watcher said nothing: %v", err)
		}
		for _, e := range ev {
			if e.Kind == KindGone && e.Who == "alice" {
				if m := s.Member("alice"); m.Pane != PaneDead {
					t.Fatalf("alice after the kill: pane %q, want dead", m.Pane)
				}
				return
			}
		}
	}
}

// TestQuietWatcherSeesALockHeldTooLong: a lock taken while the poll may
// back off is reported once it has been held LockAge (3 s), not at the
// poll after (its doubling waits from the lock's first read are 10, 20,
// ... 2560 ms, which read it again 5.1 s after it was taken).
func TestQuietWatcherSeesALockHeldTooLong(t *testing.T) {
	tm, _ := quietTeam(t)
	opts := quietOptions(time.Hour)
	opts.LockAge = 3 * time.Second
	w := NewWatcher(tm, opts)
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, _, err := w.Next(ctx); err != nil {
		t.Fatal(err)
	}
	lock := tm.InboxPath("alice") + ".lock"
	if err := os.MkdirAll(filepath.Dir(lock), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	for {
		_, ev, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("a lock held past LockAge was not reported: %v", err)
		}
		for _, e := range ev {
			if e.Kind == KindLockHeld {
				if e.HeldFor > 4 {
					t.Fatalf("the lock was reported held for %v s; want 3 (it was found at a later poll, not when it had been held LockAge)", e.HeldFor)
				}
				return
			}
		}
	}
}

// TestQuietWatcherSeesSpending: with the poll backed off an hour, a
// Claude Code teammate's transcript growing past a spending threshold is
// seen at once (its folder's file events).
func TestQuietWatcherSeesSpending(t *testing.T) {
	tm, _ := quietTeam(t)
	state := os.Getenv("PANETEAM_STATE_DIR")
	cfgDir := filepath.Join(t.TempDir(), "claude")
	if err := launches.Open(state).Write(launches.Record{Root: tm.Root, Team: tm.Name, Agent: "alice", CLI: "claude", Via: launches.ViaSpawnPane,
		Cwd: "/w", SessionID: "s", ConfigDir: cfgDir}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfgDir, "projects", "-w", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	line := func(id string, out int) string {
		return `{"type":"assistant","message":{"id":"` + id + `","model":"claude-haiku-4-5","usage":{"input_tokens":0,"output_tokens":` + strconv.Itoa(out) + `}}}` + "\n"
	}
	if err := os.WriteFile(path, []byte(line("m1", 10)), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := quietOptions(time.Hour)
	opts.Cost, opts.Spent = cost.NewReader(state, ""), []float64{0.5}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A read before the watch makes the spending cursors' folder, whose
	// making would otherwise wake the watcher below by itself.
	if _, err := Take(ctx, tm, opts.Options); err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(tm, opts)
	defer w.Close()
	s, _, err := w.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u := s.Member("alice").Usage; u == nil || !u.Followed {
		t.Fatalf("alice's spending is not read: %+v", u)
	}
	if !w.cover.ok {
		t.Fatalf("the watcher would not back off for this team: %+v", w.cover)
	}
	w.cur = time.Hour // as after a quiet hour
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line("m2", 200000)); err != nil { // $1 at $5 per million
		t.Fatal(err)
	}
	f.Close()
	for {
		_, ev, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("alice spent $1 and the watcher said nothing: %v", err)
		}
		for _, e := range ev {
			if e.Kind == KindSpent && e.Who == "alice" {
				return
			}
		}
	}
}

// TestQuietWatcherSeesTheFirstTask: with the poll backed off an hour,
// the team's first task (its folder not there before) is seen at once.
func TestQuietWatcherSeesTheFirstTask(t *testing.T) {
	tm, _ := quietTeam(t)
	if err := os.RemoveAll(tm.TasksDir()); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(tm.TasksDir()), 0o700); err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(tm, quietOptions(time.Hour))
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, _, err := w.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if !w.cover.ok || !w.allDirs {
		t.Fatalf("the watcher would not back off for this team: %+v, all folders watched %v", w.cover, w.allDirs)
	}
	w.cur = time.Hour // as after a quiet hour
	if _, err := tm.Tasks(lockfile.Options{}).Create(ctx, team.NewTask{Subject: "first"}); err != nil {
		t.Fatal(err)
	}
	for {
		_, ev, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("the first task was created and the watcher said nothing: %v", err)
		}
		for _, e := range ev {
			if e.Kind == KindTaskCreated {
				return
			}
		}
	}
}
