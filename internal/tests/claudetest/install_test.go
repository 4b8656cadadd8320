package claudetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// An older release (a Node bundle, cli.js, where 2.1.330 is a native
// binary) installs through the same function, once, even when two test
// processes ask at the same moment (here two goroutines: the lock is a
// file lock, so it holds across processes too).
func TestInstallOlderReleaseOnceIntoTheCache(t *testing.T) {
	testutil.RequireTool(t, "npm")
	testutil.RequireTool(t, "node")
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
			paths[i] = Install(t, version)
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if paths[0] != paths[1] || !strings.HasPrefix(paths[0], filepath.Join(cache, version)) {
		t.Fatalf("Install returned %q and %q, want one path under %s", paths[0], paths[1], filepath.Join(cache, version))
	}
	if n := npmInstalls.Load() - before; n != 1 {
		t.Errorf("npm ran %d times for two simultaneous Install calls, want once", n)
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
	if again := Install(t, version); again != paths[0] {
		t.Errorf("second Install = %q, want %q", again, paths[0])
	}
	if _, err := os.Stat(filepath.Join(cache, version, "node_modules", "@anthropic-ai", "claude-code", "cli.js")); err != nil {
		t.Errorf("2.1.88 should be the Node bundle: %v", err)
	}
}

func TestBinaryHonoursPANETEAM_CLAUDE_BIN(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "claude")
	testutil.WriteExecutable(t, fake, []byte("#!/bin/sh\necho '9.9.9 (Claude Code)'\n"))
	t.Setenv("PANETEAM_CLAUDE_BIN", fake)
	if got := Binary(t); got != fake {
		t.Errorf("Binary() = %q, want PANETEAM_CLAUDE_BIN %q", got, fake)
	}
}
