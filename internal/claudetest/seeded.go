package claudetest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/testutil"
)

// Seeded prepares everything Start prepares but starts no Claude Code: a
// private tmux server whose global environment is Claude's (so a Claude
// teammate a paneteam spawn-pane splits off there reaches opts.API), a
// scratch HOME and CLAUDE_CONFIG_DIR seeded so that no dialog appears, and
// a trusted project folder. It is for teams paneteam leads, where the
// only Claude Code processes are the teammates paneteam starts itself.
//
// Pane is the guard pane of the server (a shell: the person's own pane;
// TmuxEnv gives its TMUX and TMUX_PANE), PID is 0; Env, ConfigDir, Home,
// Cwd and Close work as for Start. Options.Args and NotInTmux are unused.
func Seeded(t testing.TB, opts Options) *Session {
	t.Helper()
	if opts.API == nil {
		t.Fatal("claudetest.Seeded: Options.API is required")
	}
	bin := opts.Bin
	if bin == "" {
		bin = Binary(t)
	}
	srv := testutil.TmuxServer(t)
	base := t.TempDir()
	s := &Session{
		API: opts.API, Bin: bin, Team: opts.Team, Tmux: srv, t: t,
		ConfigDir: filepath.Join(base, "config"),
		Home:      filepath.Join(base, "home"),
		Cwd:       filepath.Join(base, "project"),
	}
	for _, d := range []string{s.ConfigDir, s.Home, s.Cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.seed(); err != nil {
		t.Fatalf("seed Claude Code's config: %v", err)
	}
	s.vars = s.env(opts)
	var sets [][]string
	for _, kv := range s.vars {
		k, v, _ := strings.Cut(kv, "=")
		sets = append(sets, []string{"set-environment", "-g", k, v})
	}
	if _, err := srv.RunSeq(context.Background(), sets...); err != nil {
		t.Fatalf("set Claude's environment in the test tmux server: %v", err)
	}
	s.Pane = testutil.FirstPane(t, srv)
	t.Cleanup(s.Close)
	return s
}
