package testutil

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gofrs/flock"
)

//go:embed claude_inbox_writer.js
var claudeInboxWriter []byte

// properLockfileVersion is the proper-lockfile release line Claude Code uses.
const properLockfileVersion = "proper-lockfile@4"

// NodeModules installs proper-lockfile with npm into a cache folder shared
// by test runs (once; concurrent test processes wait for each other) and
// returns the node_modules folder, for NODE_PATH.
func NodeModules(t testing.TB) string {
	t.Helper()
	RequireTool(t, "node")
	RequireTool(t, "npm")
	cache := os.Getenv("PANETEAM_NODE_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		cache = filepath.Join(base, "paneteam-test-node")
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	fl := flock.New(filepath.Join(cache, ".install.flock"))
	if err := fl.Lock(); err != nil {
		t.Fatal(err)
	}
	defer fl.Unlock()
	mods := filepath.Join(cache, "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "proper-lockfile", "package.json")); err == nil {
		return mods
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", cache, properLockfileVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", properLockfileVersion, err, out)
	}
	return mods
}

// ClaudeInboxWriter returns a command that appends count messages to
// inbox exactly as Claude Code 2.1.88 does (create "[]" with flag wx,
// proper-lockfile lock with 10 retries from 5 to 100 ms, re-read, push,
// in-place rewrite, release). It prints "ACK <text>" for each message
// written and "DROP <text> <error>" for each it gave up on.
func ClaudeInboxWriter(t testing.TB, inbox, from, prefix string, count int) *exec.Cmd {
	t.Helper()
	mods := NodeModules(t)
	script := filepath.Join(t.TempDir(), "claude_inbox_writer.js")
	if err := os.WriteFile(script, claudeInboxWriter, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, inbox, from, prefix, strconv.Itoa(count))
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	return cmd
}
