package claudetest

import (
	"path/filepath"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestBinaryHonoursPANETEAM_CLAUDE_BIN(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "claude")
	testutil.WriteExecutable(t, fake, []byte("#!/bin/sh\necho '9.9.9 (Claude Code)'\n"))
	t.Setenv("PANETEAM_CLAUDE_BIN", fake)
	if got := Binary(t); got != fake {
		t.Errorf("Binary() = %q, want PANETEAM_CLAUDE_BIN %q", got, fake)
	}
}

// Without PANETEAM_CLAUDE_BIN, Binary is the pinned release from the one
// installer's cache: with PANETEAM_CLAUDE_CACHE naming a folder that holds
// nothing and no npm on PATH, the pinned release cannot come from anywhere,
// so Binary skips (what the test checks) rather than find a claude of its
// own, such as the real cache's.
func TestBinaryUsesTheOneInstaller(t *testing.T) {
	t.Setenv("PANETEAM_CLAUDE_BIN", "")
	t.Setenv("PANETEAM_CLAUDE_CACHE", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	t.Setenv("PANETEAM_REQUIRE_ALL", "0") // the skip is what is checked
	var got string
	skipped := false
	t.Run("binary", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		got = Binary(t)
	})
	if !skipped {
		t.Fatalf("Binary() = %q with an empty cache and no npm, want a skip", got)
	}
}
