package claudecheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// A claude that is not Claude Code fails the check at once, with what
// its screen showed, and the scratch folder is kept for a look.
func TestCheckReportsAClaudeThatExits(t *testing.T) {
	real := testutil.RequireTool(t, "tmux")
	fake := filepath.Join(t.TempDir(), "claude")
	os.WriteFile(fake, []byte("#!/bin/sh\necho 'this is no Claude Code'\nexit 3\n"), 0o755)
	exe := testutil.Binary(t)
	start := time.Now()
	rep, err := Run(context.Background(), Options{Exe: exe, Claude: fake, Environ: os.Environ(), Tmux: real, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != "" {
		t.Cleanup(func() { os.RemoveAll(rep.Kept) })
	}
	if rep.OK || len(rep.Steps) != 1 || rep.Steps[0].OK || !strings.Contains(rep.Steps[0].Why, "this is no Claude Code") {
		t.Errorf("report %+v, want the first step failed with the screen", rep)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("took %s: an exited Claude should fail the check at once", time.Since(start))
	}
	if _, err := os.Stat(rep.Kept); err != nil {
		t.Errorf("the scratch folder of a failed check is not kept: %v", err)
	}
}

// TestCheckFromAGhosttyTerminal: 'paneteam claude --check' run in a
// Ghostty terminal (its variables, and TERM=xterm-ghostty, whose
// terminfo lives in Ghostty's app and is not installed here) checks the
// installed Claude Code as from any terminal: through paneteam's tmux
// in a private server, never driving Ghostty, every step passed.
func TestCheckFromAGhosttyTerminal(t *testing.T) {
	real := testutil.RequireTool(t, "tmux")
	claude := claudetest.Binary(t)
	environ := testutil.Env()
	for k, v := range map[string]string{"TERM": "xterm-ghostty", "TERM_PROGRAM": "ghostty", "TERM_PROGRAM_VERSION": "1.3.0",
		"GHOSTTY_RESOURCES_DIR": "/Applications/Ghostty.app/Contents/Resources/ghostty", "GHOSTTY_SHELL_FEATURES": "cursor,title"} {
		environ = envlist.Set(environ, k, v)
	}
	rep, err := Run(context.Background(), Options{Exe: testutil.Binary(t), Claude: claude, Release: claudetest.Version(),
		Environ: environ, Tmux: real, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != "" {
		t.Cleanup(func() { os.RemoveAll(rep.Kept) })
	}
	if !rep.OK || len(rep.Steps) != 8 || len(rep.Unknown) != 0 {
		t.Errorf("the check from a Ghostty terminal did not pass: %+v", rep)
	}
	for _, s := range rep.Steps {
		if !s.OK {
			t.Errorf("step failed: %s: %s", s.What, s.Why)
		}
	}
}
