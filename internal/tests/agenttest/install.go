// Package agenttest runs the real agent CLIs (Codex, Gemini CLI,
// OpenCode) in tests: it installs a pinned release of each with npm into
// a cache shared by test processes, and serves each a scripted model on
// 127.0.0.1 that also refuses every other connection as their proxy.
package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// CLI is a pinned agent CLI from npm.
type CLI struct {
	Name    string // the profile's name and the program's
	Package string // the npm package
	Version string
}

// The releases the tests pin (and the profiles record as tested).
var (
	Codex    = CLI{Name: "codex", Package: "@openai/codex", Version: "0.169.0"}
	Gemini   = CLI{Name: "gemini", Package: "@google/gemini-cli", Version: "0.61.0"}
	OpenCode = CLI{Name: "opencode", Package: "opencode-ai", Version: "1.18.33"}
)

// CacheDir is where Install puts c: $PANETEAM_AGENT_CACHE/<name>-<version>,
// else $XDG_CACHE_HOME (or ~/.cache)/paneteam-agents/<name>-<version>.
func CacheDir(c CLI) (string, error) {
	base := os.Getenv("PANETEAM_AGENT_CACHE")
	if base == "" {
		base = os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("find a cache folder for the agent CLIs: %w (set PANETEAM_AGENT_CACHE)", err)
			}
			base = filepath.Join(home, ".cache")
		}
		base = filepath.Join(base, "paneteam-agents")
	}
	return filepath.Join(base, c.Name+"-"+c.Version), nil
}

// Install installs c with npm into CacheDir(c), once (test processes wait
// on a file lock and reuse what the first installed), and returns the
// folder holding its program (node_modules/.bin), to put first on PATH.
// Without npm the test skips (fails under PANETEAM_REQUIRE_ALL=1).
func Install(t testing.TB, c CLI) string {
	t.Helper()
	dir, err := CacheDir(c)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	if installed(dir, c) {
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
	if installed(dir, c) {
		return bin
	}
	t.Logf("installing %s@%s with npm into %s", c.Package, c.Version, dir)
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, c.Package+"@"+c.Version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s@%s into %s: %v\n%s", c.Package, c.Version, dir, err, out)
	}
	if !installed(dir, c) {
		t.Fatalf("npm installed %s@%s into %s, but its program %s is not there", c.Package, c.Version, dir, c.Name)
	}
	return bin
}

func installed(dir string, c CLI) bool {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", c.Package, "package.json"))
	if err != nil {
		return false
	}
	var meta struct{ Version string }
	if json.Unmarshal(b, &meta) != nil || meta.Version != c.Version {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "node_modules", ".bin", c.Name))
	return err == nil
}
