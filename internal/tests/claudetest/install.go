// Package claudetest runs the real Claude Code in paneteam's tests: it
// installs a pinned version with npm into a cache folder, serves a fake
// Anthropic Messages API whose replies the test scripts turn by turn, and
// drives Claude Code's interactive UI in a private tmux server with a
// scratch config folder (PROTOCOL-2.1.330.md §13, TESTING.md "The real
// Claude Code, driven by a scripted model"). Nothing leaves the machine.
//
//	api := claudetest.NewAPI(t)
//	s := claudetest.Start(t, claudetest.Options{API: api, Team: "demo"})
//	s.WaitTeam(t, 90*time.Second) // config.json with leadProcess
//	api.On("tell ptw hi", // the prompt typed below starts this exchange
//		claudetest.Calls(claudetest.Tool("ToolSearch", map[string]any{"query": "select:SendMessage", "max_results": 5})),
//		claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "ptw", "message": "hi", "summary": "hi"})),
//		claudetest.Text("Sent."))
//	s.Submit(t, 90*time.Second, "tell ptw hi")
//	res := api.WaitMessages(t, 90*time.Second, 0, "Message sent to ptw") // the tool result Claude sent back
//
// Set PANETEAM_CLAUDETEST_DUMP=<dir> to keep every request body as a file.
package claudetest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// DefaultVersion is the Claude Code release the interop tests pin: the one
// PROTOCOL-2.1.330.md describes.
const DefaultVersion = "2.1.330"

// Binary returns the Claude Code to test: $PANETEAM_CLAUDE_BIN when set,
// else DefaultVersion installed with Install.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("PANETEAM_CLAUDE_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("PANETEAM_CLAUDE_BIN=%s: %v", p, err)
		}
		return p
	}
	return Install(t, DefaultVersion)
}

// CacheDir is the folder Install uses for version: $PANETEAM_CLAUDE_CACHE/<version>,
// else $XDG_CACHE_HOME (or ~/.cache)/paneteam-claude/<version>.
func CacheDir(version string) (string, error) {
	if base := os.Getenv("PANETEAM_CLAUDE_CACHE"); base != "" {
		return filepath.Join(base, version), nil
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find a cache folder for Claude Code: %w (set PANETEAM_CLAUDE_CACHE)", err)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "paneteam-claude", version), nil
}

// Install installs @anthropic-ai/claude-code@version with npm into
// CacheDir(version), once (parallel test processes wait on a file lock and
// reuse what the first installed), and returns the path of a runnable
// claude: the native binary for 2.1.330-style releases (npm pulls it as
// @anthropic-ai/claude-code-<os>-<arch>; found there too when the
// package's postinstall did not run), or cli.js, a Node script with a
// shebang, for older releases such as 2.1.88. Without npm the test skips
// (fails under PANETEAM_REQUIRE_ALL=1).
func Install(t testing.TB, version string) string {
	t.Helper()
	dir, err := CacheDir(version)
	if err != nil {
		t.Fatal(err)
	}
	if bin, err := findInstalled(dir, version); err == nil {
		return bin
	}
	testutil.RequireTool(t, "npm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fl := flock.New(dir + ".flock")
	if err := fl.Lock(); err != nil {
		t.Fatalf("lock %s: %v", dir+".flock", err)
	}
	defer fl.Unlock()
	if bin, err := findInstalled(dir, version); err == nil {
		return bin // another test process installed it while we waited
	}
	t.Logf("installing Claude Code %s with npm into %s (about 380 MB for native releases)", version, dir)
	npmInstalls.Add(1)
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
		"--prefix", dir, "@anthropic-ai/claude-code@"+version)
	cmd.Env = append(os.Environ(), "DISABLE_AUTOUPDATER=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install @anthropic-ai/claude-code@%s into %s: %v\n%s", version, dir, err, out)
	}
	bin, err := findInstalled(dir, version)
	if err != nil {
		t.Fatalf("after npm install: %v", err)
	}
	return bin
}

// npmInstalls counts npm runs in this process, for the install test.
var npmInstalls atomic.Int32

// findInstalled returns a claude under dir that reports version.
func findInstalled(dir, version string) (string, error) {
	mods := filepath.Join(dir, "node_modules")
	pkg := filepath.Join(mods, "@anthropic-ai", "claude-code")
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return "", fmt.Errorf("Claude Code %s is not installed in %s", version, dir)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &meta) != nil || meta.Version != version {
		return "", fmt.Errorf("%s holds Claude Code %q, not %s", pkg, meta.Version, version)
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	candidates := []string{
		filepath.Join(mods, ".bin", "claude"),
		filepath.Join(mods, "@anthropic-ai", "claude-code-"+runtime.GOOS+"-"+arch, "claude"),
		filepath.Join(mods, "@anthropic-ai", "claude-code-"+runtime.GOOS+"-"+arch+"-musl", "claude"),
		filepath.Join(pkg, "cli.js"),
	}
	var tried []string
	for _, c := range candidates {
		if _, err := os.Stat(c); err != nil {
			continue
		}
		out, err := exec.Command(c, "--version").Output()
		if err == nil && strings.HasPrefix(strings.TrimSpace(string(out)), version) {
			return c, nil
		}
		tried = append(tried, fmt.Sprintf("%s: %q %v", c, strings.TrimSpace(string(out)), err))
	}
	return "", fmt.Errorf("no runnable claude %s in %s (tried %s)", version, dir, strings.Join(tried, "; "))
}
