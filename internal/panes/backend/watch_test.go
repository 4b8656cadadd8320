package backend_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// TestStartupCheckLooksOnce: a spawn's 50 ms startup check looks at the
// new pane once, at its end, not every 10 ms: each look is a tmux client,
// as much CPU as the rest of the spawn (bench/spawn).
func TestStartupCheckLooksOnce(t *testing.T) {
	testutil.RequireTool(t, "tmux")
	real, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	wrapper := filepath.Join(dir, "tmux")
	script := "#!/bin/sh\necho \"$*\" >> " + tmux.ShellQuote(calls) + "\nexec " + tmux.ShellQuote(real) + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// The tmux client paneteam runs is found on PATH.
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	tmpdir := testutil.ShortTempDir(t)
	vars := map[string]string{"TMUX_TMPDIR": tmpdir, "PANETEAM_TMUX_CONFIG": "/dev/null"}
	lookPath := func(name string) (string, error) {
		if name == "tmux" {
			return wrapper, nil
		}
		return exec.LookPath(name)
	}
	b, err := backend.Choose(backend.Env{Getenv: func(k string) string { return vars[k] }, LookPath: lookPath}, nil, team.BackendTmux)
	if err != nil {
		t.Fatal(err)
	}
	const leader = 4000001
	cfg := &team.Config{Name: "crew", Paneteam: &team.TeamMeta{LeaderPID: leader}}
	srv := tmux.Server{Name: backend.PrivateServerName(leader, team.Team{Name: cfg.Name}), TmpDir: tmpdir}
	sock, _ := srv.SocketPath()
	t.Cleanup(func() { exec.Command(real, "-S", sock, "kill-server").Run() })

	m := team.Member{Name: "alice", AgentID: "alice@crew", Cwd: t.TempDir()}
	start := time.Now()
	p, err := b.Spawn(context.Background(), backend.Spec{Config: cfg, Member: m, Argv: []string{"sleep", "1000"}, StartupCheck: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("Spawn returned after %v, before its 50ms startup check", took)
	}
	if p.Meta == nil || p.Meta.PID == 0 {
		t.Errorf("Spawn = %+v, want the pane's pid from its last look", p)
	}
	b2, _ := os.ReadFile(calls)
	after := string(b2)
	if i := strings.LastIndex(after, "wait-for -S"); i >= 0 {
		after = after[i:] // the looks come after the command was let go
	} else {
		t.Fatalf("no command was let go in the pane; tmux calls:\n%s", b2)
	}
	if looks := strings.Count(after, "list-panes"); looks != 1 {
		t.Errorf("the 50ms startup check looked at the pane %d times, want once; tmux calls after the start:\n%s", looks, after)
	}
}
