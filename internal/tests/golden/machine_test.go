package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// fakePrograms makes a folder of stand-ins that print what the real
// programs print for --version (and -V), so that what paneteam reports
// about the machine is the same on every machine: Claude Code, Codex (at
// the release paneteam tests) and tmux are "installed"; Gemini CLI,
// OpenCode and it2 are not.
func fakePrograms(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, version := range map[string]string{
		"claude": "2.1.330 (Claude Code)",
		"codex":  "codex-cli 0.169.0",
		"tmux":   "tmux 3.4",
	} {
		testutil.WriteExecutable(t, filepath.Join(dir, name), []byte("#!/bin/sh\necho '"+version+"'\n"))
	}
}

// TestMachineCommandsJSON pins the --json of the commands that describe
// the machine: which agent CLIs are there, what the backend choice sees,
// and how Claude Code would be started. PATH holds only the fakes (and
// sh, which they run under).
func TestMachineCommandsJSON(t *testing.T) {
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	fakePrograms(t, bin)
	if err := os.Symlink(testutil.RequireTool(t, "sh"), filepath.Join(bin, "sh")); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, tmp, bin)

	s.golden("agents", 0, "agents", "--json")
	s.golden("iterm2-doctor", 0, "iterm2", "doctor", "--json")
	s.golden("iterm2-doctor-in-process", 0, "iterm2", "doctor", "--json", "--backend", "in-process")
	s.golden("iterm2-profile", 0, "iterm2", "profile", "--json")
	// --dry-run prints the command line and environment Claude would get
	// and starts nothing.
	s.golden("claude-dry-run", 0, "claude", "--dry-run", "--json")
}
