package claudetest

import (
	"context"
	"testing"
	"time"
)

// StartHost prepares what Start prepares, a private tmux server whose
// global environment is Claude's (scratch HOME and CLAUDE_CONFIG_DIR
// seeded so no dialog appears, every network call pointed at opts.API),
// but launches no Claude Code: Pane is a plain shell pane where a person
// leads a team from paneteam. Claude teammates paneteam spawns there
// (spawn-pane --claude, with TmuxEnv so they split beside Pane) inherit
// that environment and reach the fake model. PID is the shell's; Close
// (registered with t.Cleanup) ends the server. opts.Args and
// opts.NotInTmux are ignored. Missing tmux skips the test (fails under
// PANETEAM_REQUIRE_ALL=1).
func StartHost(t testing.TB, opts Options) *Session {
	t.Helper()
	s, srv, _ := prepare(t, opts, "claudetest.StartHost")
	s.shell = true
	s.startPane(t, srv, "lead", "/bin/sh")
	return s
}

// Wait waits until cond holds, polling every 100 ms; on timeout it fails
// with the screen of Pane and the requests the fake model saw.
func (s *Session) Wait(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	s.waitFor(t, d, what, cond)
}

// PaneScreen is the visible text of another pane of the session's tmux
// server (a teammate's), or the error capture-pane gave.
func (s *Session) PaneScreen(pane string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := s.Tmux.Run(ctx, "capture-pane", "-p", "-t", pane)
	if err != nil {
		return "(capture-pane: " + err.Error() + ")"
	}
	return out
}
