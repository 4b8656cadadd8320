package spawn_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// world is a team led by this test process, a private tmux server whose
// first pane stands for the lead's, and the environment a spawning
// process would see there (its state folder private too).
type world struct {
	t    *testing.T
	team team.Team
	srv  tmux.Server
	vars map[string]string
	keys provenance.Store
}

func newWorld(t *testing.T) *world {
	t.Helper()
	srv := testutil.TmuxServer(t)
	tm := teamtest.New(t, "crew", team.CreateOptions{LeaderPID: os.Getpid()})
	w := &world{t: t, team: tm, srv: srv, vars: map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": t.TempDir(), "PANETEAM_STATE_DIR": t.TempDir(),
	}}
	for _, kv := range testutil.TmuxEnv(t, srv, testutil.FirstPane(t, srv)) {
		k, v, _ := strings.Cut(kv, "=")
		w.vars[k] = v
	}
	keys, err := provenance.DefaultStore(w.getenv)
	if err != nil {
		t.Fatal(err)
	}
	w.keys = keys
	return w
}

func (w *world) getenv(k string) string { return w.vars[k] }

// request is a spawn of name on the tmux backend, watched long enough to
// see a command that fails at once.
func (w *world) request(name, cwd string, l spawn.Program) spawn.Request {
	return spawn.Request{
		Team: w.team, Member: team.Member{Name: name, Cwd: cwd, Prompt: "review the diff"}, Program: l,
		BackendName: team.BackendTmux, Caller: post.Caller{Getenv: w.getenv},
		BackendEnv:   backend.Env{Getenv: w.getenv, LookPath: exec.LookPath, Warn: func(string, ...any) {}},
		StartupCheck: 300 * time.Millisecond,
	}
}

func (w *world) config() *team.Config {
	w.t.Helper()
	cfg, err := team.Load(w.team.ConfigPath())
	if err != nil {
		w.t.Fatal(err)
	}
	return cfg
}

func (w *world) inbox(name string) []mailbox.Message {
	w.t.Helper()
	msgs, err := mailbox.New(w.team.InboxPath(name), lockfile.Options{}).ReadAll()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		w.t.Fatal(err)
	}
	return msgs
}

func TestRunStartsTheTeammateWithItsPrompt(t *testing.T) {
	w := newWorld(t)
	marks := filepath.Join(t.TempDir(), "marks")
	l := spawn.Command{Argv: []string{"sh", "-c", `echo "$PANETEAM_AGENT $PANETEAM_TEAM" > "$0"; exec sleep 600`, marks}}
	res, err := spawn.Run(context.Background(), w.request("alice", t.TempDir(), l))
	if err != nil {
		t.Fatal(err)
	}
	m := w.config().Member("alice")
	if m == nil || m.TmuxPaneID != res.PaneID || res.AgentID != "alice@crew" || res.Backend != team.BackendTmux {
		t.Fatalf("result %+v, member %+v", res, m)
	}
	testutil.Eventually(t, 5*time.Second, "the teammate to run in its pane", func() bool {
		b, _ := os.ReadFile(marks)
		return string(b) == "alice crew\n"
	})
	if got := w.inbox("alice"); len(got) != 1 || got[0].From != team.LeadName || got[0].Text != "review the diff" {
		t.Errorf("inbox %+v, want the prompt from team-lead", got)
	}
}

// TestFailedStartLeavesNothing: a Claude Code teammate whose command
// exits at once, with a worktree, a key and a prompt: after the failed
// start none of them is left, and the team is as before.
func TestFailedStartLeavesNothing(t *testing.T) {
	w := newWorld(t)
	repo := testutil.GitRepo(t)
	dir := t.TempDir()
	bin, args := filepath.Join(dir, "claude"), filepath.Join(dir, "args")
	testutil.WriteExecutable(t, bin, []byte("#!/bin/sh\necho \"$@\" > "+args+"\necho 'no API key' >&2\nexit 3\n"))
	l := &spawn.Claude{Command: []string{bin}, Version: claudeversion.Tested}
	r := w.request("alice", repo, l)
	r.Worktree = true
	_, err := spawn.Run(context.Background(), r)
	if err == nil || !strings.Contains(err.Error(), "start alice") {
		t.Fatalf("spawn of a command that exits at once: %v", err)
	}
	if b, _ := os.ReadFile(args); !strings.Contains(string(b), "--lead-verify-key") {
		t.Fatalf("the teammate was not given a key (args %q): nothing to take back", b)
	}
	if m := w.config().Member("alice"); m != nil {
		t.Errorf("the member is left: %s in %s", m.AgentID, m.Cwd)
	}
	if k, _ := w.keys.Load(w.team.InboxPath("alice")); k != nil {
		t.Error("its signing key is left")
	}
	if _, err := os.Stat(worktree.Path(repo, "crew", "alice")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("its worktree is left: %v", err)
	}
	if got := w.inbox("alice"); len(got) != 0 {
		t.Errorf("its inbox holds %d messages, the first from %s", len(got), got[0].From)
	}
}

// failingLauncher is a launcher that cannot prepare its command.
type failingLauncher struct{ spawn.Command }

func (failingLauncher) Prepare(context.Context, spawn.Setup) (spawn.Prepared, error) {
	return spawn.Prepared{}, errors.New("no command for you")
}

// TestFailedPrepareLeavesNothing: a launcher's failure undoes the member
// and the worktree made before it, and no pane is started.
func TestFailedPrepareLeavesNothing(t *testing.T) {
	w := newWorld(t)
	repo := testutil.GitRepo(t)
	r := w.request("bob", repo, failingLauncher{spawn.Command{Argv: []string{"sleep", "600"}}})
	r.Worktree = true
	if _, err := spawn.Run(context.Background(), r); err == nil || !strings.Contains(err.Error(), "no command for you") {
		t.Fatalf("spawn: %v", err)
	}
	if m := w.config().Member("bob"); m != nil {
		t.Errorf("the member is left: %s in %s", m.AgentID, m.Cwd)
	}
	if _, err := os.Stat(worktree.Path(repo, "crew", "bob")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("its worktree is left: %v", err)
	}
	out, err := w.srv.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_id}")
	if err != nil || len(strings.Fields(out)) != 1 {
		t.Errorf("panes %q (%v), want the lead's only", out, err)
	}
}

// TestMissingProgramWritesNothing: a program that is not there is
// refused before the team changes.
func TestMissingProgramWritesNothing(t *testing.T) {
	w := newWorld(t)
	_, err := spawn.Run(context.Background(), w.request("carol", t.TempDir(), spawn.Command{Argv: []string{"no-such-program-here"}}))
	if err == nil || !strings.Contains(err.Error(), "cannot run no-such-program-here") {
		t.Fatalf("spawn: %v", err)
	}
	if n := len(w.config().Members); n != 1 {
		t.Errorf("the team has %d members, want the lead only", n)
	}
}
