package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// An older release (a Node bundle, cli.js, where 2.1.113 and later are
// native binaries, docs/PROTOCOL.md §16) installs through the same
// function, once, even when two test processes ask at the same moment
// (here two goroutines: the lock is a file lock, so it holds across
// processes too).
func TestInstallOlderReleaseOnceIntoTheCache(t *testing.T) {
	RequireTool(t, "npm")
	RequireTool(t, "node")
	cache := t.TempDir()
	t.Setenv("PANETEAM_CLAUDE_CACHE", cache)
	const version = "2.1.88"

	before := npmInstalls.Load()
	var wg sync.WaitGroup
	paths := make([]string, 2)
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths[i] = ClaudeReleaseBin(t, version)
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if paths[0] != paths[1] || !strings.HasPrefix(paths[0], filepath.Join(cache, version)) {
		t.Fatalf("ClaudeReleaseBin returned %q and %q, want one path under %s", paths[0], paths[1], filepath.Join(cache, version))
	}
	if n := npmInstalls.Load() - before; n != 1 {
		t.Errorf("npm ran %d times for two simultaneous ClaudeReleaseBin calls, want once", n)
	}
	out, err := exec.Command(paths[0], "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), version+" ") {
		t.Fatalf("%s --version = %q, %v; want %s", paths[0], out, err, version)
	}
	// A second call reuses the install without npm (node stays: cli.js
	// needs it).
	node, _ := exec.LookPath("node")
	bin := t.TempDir()
	if err := os.Symlink(node, filepath.Join(bin, "node")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if again := ClaudeReleaseBin(t, version); again != paths[0] {
		t.Errorf("second ClaudeReleaseBin = %q, want %q", again, paths[0])
	}
	if _, err := os.Stat(filepath.Join(cache, version, "node_modules", "@anthropic-ai", "claude-code", "cli.js")); err != nil {
		t.Errorf("2.1.88 should be the Node bundle: %v", err)
	}
}

// The cache folder is where the README says, and PANETEAM_CLAUDE_CACHE
// moves it.
func TestClaudeCacheDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("PANETEAM_CLAUDE_CACHE", "")
	for _, c := range []struct {
		name, env, val, want string
	}{
		{"default", "", "", filepath.Join(home, ".cache", "paneteam-claude", "2.1.330")},
		{"XDG_CACHE_HOME", "XDG_CACHE_HOME", "/x/cache", "/x/cache/paneteam-claude/2.1.330"},
		{"PANETEAM_CLAUDE_CACHE", "PANETEAM_CLAUDE_CACHE", "/y/claude", "/y/claude/2.1.330"},
	} {
		if c.env != "" {
			t.Setenv(c.env, c.val)
		}
		if got, err := ClaudeCacheDir("2.1.330"); err != nil || got != c.want {
			t.Errorf("%s: ClaudeCacheDir = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}
