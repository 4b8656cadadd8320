package testutil

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/tmux"
)

// TmuxServer starts a private tmux server for one test, on a socket in a
// short temp folder, with -f /dev/null and a guard session "guard" (a
// 200x50 window running a shell) so it stays up; it is killed when the
// test ends. It never touches the default server.
func TmuxServer(t testing.TB) tmux.Server {
	t.Helper()
	RequireTool(t, "tmux")
	dir := ShortTempDir(t)
	srv := tmux.Server{Socket: filepath.Join(dir, "s"), Config: "/dev/null"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := srv.Run(ctx, "new-session", "-d", "-s", "guard", "-x", "200", "-y", "50"); err != nil {
		t.Fatalf("start test tmux server: %v", err)
	}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", srv.Socket, "kill-server").Run()
	})
	return srv
}

// TmuxEnv returns TMUX and TMUX_PANE values that make a command believe it
// runs inside pane of the test server.
func TmuxEnv(t testing.TB, srv tmux.Server, pane string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pid, err := srv.Run(ctx, "display-message", "-p", "#{pid}")
	if err != nil {
		t.Fatal(err)
	}
	return []string{"TMUX=" + srv.Socket + "," + strings.TrimSpace(pid) + ",0", "TMUX_PANE=" + pane}
}

// FirstPane returns the id of the guard session's first pane.
func FirstPane(t testing.TB, srv tmux.Server) string {
	t.Helper()
	out, err := srv.Run(context.Background(), "list-panes", "-t", "guard", "-F", "#{pane_id}")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(out)[0]
}

// ServerEnv is the tmux commands that put vars (KEY=VALUE) in a test
// server's global environment, which every pane opened later gets. When
// vars give a HOME of the test's own, they also take the test process's
// state and config folders out of it (those vars not given), as Env does,
// so that the panes work them out from that HOME like the test's own
// paneteam runs and the program vars are for.
func ServerEnv(vars []string) [][]string {
	var sets [][]string
	given := map[string]bool{}
	home, hasHome := "", false
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		given[k] = true
		if k == "HOME" {
			home, hasHome = v, true
		}
		sets = append(sets, []string{"set-environment", "-g", k, v})
	}
	if ownHome(home, hasHome) {
		for _, k := range testFolderVars {
			if !given[k] {
				sets = append(sets, []string{"set-environment", "-gu", k})
			}
		}
	}
	return sets
}

// SetServerEnv runs ServerEnv(vars) in srv.
func SetServerEnv(t testing.TB, srv tmux.Server, vars ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := srv.RunSeq(ctx, ServerEnv(vars)...); err != nil {
		t.Fatalf("set the test tmux server's environment: %v", err)
	}
}
