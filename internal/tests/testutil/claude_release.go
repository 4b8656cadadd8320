package testutil

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gofrs/flock"
)

// ClaudeCacheDir is the folder ClaudeReleaseBin installs version into:
// $PANETEAM_CLAUDE_CACHE/<version>, else $XDG_CACHE_HOME (or
// ~/.cache)/paneteam-claude/<version>.
func ClaudeCacheDir(version string) (string, error) {
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

// ClaudeReleaseBin is the one way tests install the real Claude Code: it
// installs @anthropic-ai/claude-code@version with npm into
// ClaudeCacheDir(version), once (parallel test processes wait on the file
// lock "<cache dir>.flock" and reuse what the first installed), and
// returns the path of a runnable claude that reports version: the native
// binary for 2.1.113 and later (npm pulls it as
// @anthropic-ai/claude-code-<os>-<arch>, about 380 MB; found there too
// when the package's postinstall did not run), or cli.js, a Node script
// with a shebang, for older releases such as 2.1.88. Without npm the test
// skips (fails under PANETEAM_REQUIRE_ALL=1). claudetest.Binary adds
// PANETEAM_CLAUDE_BIN on top, for the pinned release.
func ClaudeReleaseBin(t testing.TB, version string) string {
	t.Helper()
	dir, err := ClaudeCacheDir(version)
	if err != nil {
		t.Fatal(err)
	}
	if bin, err := findClaude(dir, version); err == nil {
		return bin
	}
	RequireTool(t, "npm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fl := flock.New(dir + ".flock")
	if err := fl.Lock(); err != nil {
		t.Fatalf("lock %s: %v", dir+".flock", err)
	}
	defer fl.Unlock()
	if bin, err := findClaude(dir, version); err == nil {
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
	bin, err := findClaude(dir, version)
	if err != nil {
		t.Fatalf("after npm install: %v", err)
	}
	return bin
}

// npmInstalls counts npm runs in this process, for the install test.
var npmInstalls atomic.Int32

// findClaude returns a claude under dir that reports version.
func findClaude(dir, version string) (string, error) {
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

// RefusingAPI serves, on 127.0.0.1, an Anthropic API that answers every
// request with a 400 error and refuses proxy CONNECTs, and returns its
// URL: Claude Code run with `-p` against it gets as far as its first API
// call and exits at once with "API Error: 400", which proves its command
// line was accepted, without any network.
func RefusingAPI(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect {
			http.Error(w, "no outside connections in tests", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"type":"error","error":{"type":"invalid_request_error","message":"paneteam test: no model here"}}`))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}
