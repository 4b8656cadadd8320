package claudetest

import (
	"context"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// Relaunch starts another Claude Code (s.Bin with args) with s's folders
// and environment, as a person starts it again after a crash: a fresh
// private tmux server on s's socket (once s's server is gone; kill it
// first), Claude's environment its global one again, the new Claude in
// its first pane. The returned Session shares s's API, HOME,
// CLAUDE_CONFIG_DIR and project folder; Close (registered with t.Cleanup)
// ends it. s counts as ended: its Close no longer signals its pid, which
// another process may have by then.
func (s *Session) Relaunch(t testing.TB, args ...string) *Session {
	t.Helper()
	s.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := &Session{API: s.API, Bin: s.Bin, ConfigDir: s.ConfigDir, Home: s.Home, Cwd: s.Cwd, Team: s.Team, Tmux: s.Tmux, t: t, vars: s.Env()}
	sets := append([][]string{{"new-session", "-d", "-s", "guard", "-x", "200", "-y", "50"}}, testutil.ServerEnv(n.vars)...)
	if _, err := n.Tmux.RunSeq(ctx, sets...); err != nil {
		t.Fatalf("start the test tmux server again: %v", err)
	}
	line := "exec env -i " + `TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ` + tmux.ShellJoin(append(n.vars, append([]string{n.Bin}, args...)...))
	n.startPane(t, n.Tmux, "claude", "/bin/sh", "-c", line)
	return n
}
