package backend_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// noMultiplexer is a world with neither tmux nor iTerm2.
func noMultiplexer(t *testing.T) backend.Env {
	return backend.Env{
		Getenv:   func(string) string { return "" },
		LookPath: func(string) (string, error) { return "", exec.ErrNotFound },
		Exe:      testutil.Binary(t),
		Warn:     func(string, ...any) {},
	}
}

func inProcessTeam(t *testing.T) (team.Team, *team.Config, team.Member) {
	t.Helper()
	tm := teamtest.New(t, "ip", team.CreateOptions{Cwd: t.TempDir()}, team.Member{Name: "worker", Cwd: t.TempDir()})
	cfg := teamtest.Load(t, tm)
	return tm, cfg, *cfg.Member("worker")
}

func TestInProcessFallbackSpawnAliveKill(t *testing.T) {
	env := noMultiplexer(t)
	tm, cfg, m := inProcessTeam(t)
	b, err := backend.Choose(env, cfg, backend.Auto)
	if err != nil || b.Name() != team.BackendInProcess {
		t.Fatalf("Choose with no tmux = %v, %v; want in-process", b, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pane, err := b.Spawn(ctx, backend.Spec{Team: tm, Config: cfg, Member: m, Argv: []string{"sleep", "1000"}, StartupCheck: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if pane.ID != "in-process" || pane.Backend != "in-process" || pane.Meta == nil || pane.Meta.PID == 0 || pane.Meta.PIDStart == "" || pane.Meta.HostState == "" {
		t.Fatalf("pane = %+v %+v", pane, pane.Meta)
	}
	m.TmuxPaneID, m.BackendType, m.Paneteam = pane.ID, pane.Backend, pane.Meta
	if alive, err := b.Alive(ctx, cfg, &m); !alive || err != nil {
		t.Fatalf("Alive after Spawn = %v, %v", alive, err)
	}
	if err := b.Kill(ctx, cfg, &m); err != nil {
		t.Fatal(err)
	}
	if alive, _ := b.Alive(ctx, cfg, &m); alive {
		t.Fatal("alive after Kill")
	}
	if err := b.Kill(ctx, cfg, &m); err != nil {
		t.Fatalf("Kill of a teammate already gone: %v", err)
	}
}

func TestInProcessSpawnReportsACommandThatFailsAtOnce(t *testing.T) {
	env := noMultiplexer(t)
	tm, cfg, m := inProcessTeam(t)
	b, _ := backend.Choose(env, cfg, team.BackendInProcess)
	_, err := b.Spawn(context.Background(), backend.Spec{Team: tm, Config: cfg, Member: m,
		Argv: []string{"sh", "-c", "echo bad flag --frobnicate; exit 2"}, StartupCheck: 3 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "status 2") || !strings.Contains(err.Error(), "bad flag") {
		t.Fatalf("Spawn of a failing command: %v; want its status and output", err)
	}
}
