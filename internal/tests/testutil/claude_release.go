package testutil

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gofrs/flock"
)

// ClaudeReleaseBin returns the claude command of Claude Code release
// version, installed with npm (@anthropic-ai/claude-code@version) into a
// cache folder shared by test runs, once: $PANETEAM_CLAUDE_CACHE, else
// <user cache>/paneteam-claude/<version>. Releases up to 2.1.112 are a
// Node bundle of about 100 MB; later ones pull a native binary of about
// 380 MB. Without npm the test skips (fails under PANETEAM_REQUIRE_ALL=1).
func ClaudeReleaseBin(t testing.TB, version string) string {
	t.Helper()
	base := os.Getenv("PANETEAM_CLAUDE_CACHE")
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			c = os.TempDir()
		}
		base = filepath.Join(c, "paneteam-claude")
	}
	dir := filepath.Join(base, version)
	bin := filepath.Join(dir, "node_modules", ".bin", "claude")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	RequireTool(t, "npm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fl := flock.New(filepath.Join(dir, ".install.flock"))
	if err := fl.Lock(); err != nil {
		t.Fatal(err)
	}
	defer fl.Unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", dir, "@anthropic-ai/claude-code@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install @anthropic-ai/claude-code@%s: %v\n%s", version, err, out)
	}
	return bin
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
