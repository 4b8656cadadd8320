// Package testutil holds what paneteam's tests share: real tools found or
// required, the paneteam binary built once, a private tmux server per
// test, and a Node peer that locks files exactly as Claude Code does.
package testutil

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// RequireAll reports whether missing tools must fail tests instead of
// skipping them (CI sets PANETEAM_REQUIRE_ALL=1).
func RequireAll() bool { return os.Getenv("PANETEAM_REQUIRE_ALL") == "1" }

// RequireTool returns the path of a program the test needs. When it is
// missing the test is skipped loudly, or fails under PANETEAM_REQUIRE_ALL=1.
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if RequireAll() {
			t.Fatalf("%s is required (PANETEAM_REQUIRE_ALL=1) but not on PATH: install it", name)
		}
		t.Skipf("SKIPPED: %s is not on PATH; install it to run this test", name)
	}
	return p
}

// ModuleRoot is the repository's root folder.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  []byte
)

// Binary builds cmd/paneteam once per test process and returns its path.
// Every test process of one checkout (and race mode) builds to the same
// place, replacing the file by rename (a running binary keeps its old
// copy), so test runs leave one binary behind at most, not one per run.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() { binPath, buildOut, buildErr = build("paneteam", "./cmd/paneteam") })
	if buildErr != nil {
		t.Fatalf("build paneteam: %v\n%s", buildErr, buildOut)
	}
	return binPath
}

var (
	mcpOnce sync.Once
	mcpPath string
	mcpErr  error
	mcpOut  []byte
)

// MCPBinary builds cmd/paneteam-mcp, the program behind 'paneteam mcp',
// beside Binary's paneteam and named as 'paneteam mcp' looks for it
// (paneteam-mcp, or paneteam-mcp-race beside paneteam-race), and returns
// its path.
func MCPBinary(t testing.TB) string {
	t.Helper()
	mcpOnce.Do(func() { mcpPath, mcpOut, mcpErr = build("paneteam-mcp", "./cmd/paneteam-mcp") })
	if mcpErr != nil {
		t.Fatalf("build paneteam-mcp: %v\n%s", mcpErr, mcpOut)
	}
	return mcpPath
}

var (
	dashOnce sync.Once
	dashPath string
	dashErr  error
	dashOut  []byte
)

// DashboardBinary builds cmd/paneteam-dashboard, the program 'paneteam
// dashboard' becomes, beside Binary's paneteam and named as paneteam
// looks for it (paneteam-dashboard, or paneteam-dashboard-race beside
// paneteam-race), and returns its path. A test that runs the dashboard
// through paneteam calls it first.
func DashboardBinary(t testing.TB) string {
	t.Helper()
	dashOnce.Do(func() { dashPath, dashOut, dashErr = build("paneteam-dashboard", "./cmd/paneteam-dashboard") })
	if dashErr != nil {
		t.Fatalf("build paneteam-dashboard: %v\n%s", dashErr, dashOut)
	}
	return dashPath
}

type toolBuild struct {
	once sync.Once
	path string
	out  []byte
	err  error
}

var tools sync.Map // pkg -> *toolBuild

// Tool builds the module's program pkg (a path from the module root,
// testdata folders included) once per test process, without -race, as
// name in a folder of its own beside Binary's (so that folder can go
// first on a PATH with nothing else in it), and returns its path. Like
// Binary, every test process of one checkout builds to the same place
// and replaces the file by rename: runs leave one copy behind, not one
// per run.
func Tool(t testing.TB, name, pkg string) string {
	t.Helper()
	v, _ := tools.LoadOrStore(pkg, &toolBuild{})
	b := v.(*toolBuild)
	b.once.Do(func() { b.path, b.out, b.err = buildTool(name, pkg) })
	if b.err != nil {
		t.Fatalf("build %s from %s: %v\n%s", name, pkg, b.err, b.out)
	}
	return b.path
}

func buildTool(name, pkg string) (string, []byte, error) {
	sum := sha256.Sum256([]byte(ModuleRoot()))
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("paneteam-test-bin-%x", sum[:6]), "tool-"+filepath.Base(pkg))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	tmp, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		return "", nil, err
	}
	tmp.Close()
	cmd := exec.Command("go", "build", "-o", tmp.Name(), pkg)
	cmd.Dir = ModuleRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp.Name())
		return "", out, err
	}
	path := filepath.Join(dir, name)
	return path, nil, os.Rename(tmp.Name(), path)
}

// build builds the command pkg of the module as name (with -race when the
// tests run with it) into the checkout's test binary folder.
func build(name, pkg string) (path string, out []byte, err error) {
	sum := sha256.Sum256([]byte(ModuleRoot()))
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("paneteam-test-bin-%x", sum[:6]))
	if err = os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	args := []string{"build"}
	if raceEnabled {
		name += "-race"
		args = append(args, "-race")
	}
	path = filepath.Join(dir, name)
	tmp, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		return "", nil, err
	}
	tmp.Close()
	cmd := exec.Command("go", append(args, "-o", tmp.Name(), pkg)...)
	cmd.Dir = ModuleRoot()
	if out, err = cmd.CombinedOutput(); err != nil {
		os.Remove(tmp.Name())
		return "", out, err
	}
	return path, nil, os.Rename(tmp.Name(), path)
}

// Root returns a fresh team root for one test: never the user's ~/.claude.
func Root(t testing.TB) string {
	t.Helper()
	return t.TempDir()
}

// ShortTempDir is a temp folder with a short path, for Unix sockets (whose
// paths must stay under about 100 bytes); removed when the test ends.
func ShortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "pt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Env returns os.Environ() without variables that would make a child
// paneteam think it runs inside the developer's tmux, iTerm2 or team,
// plus extra KEY=VALUE pairs. It carries the test process's state and
// config folders (StateDir), unless extra gives a HOME of the test's own:
// then paneteam works them out from that HOME, as for a person.
func Env(extra ...string) []string {
	home, given := "", false
	for _, kv := range extra {
		if k, v, _ := cutEq(kv); k == "HOME" {
			home, given = v, true
		}
	}
	dropFolders := ownHome(home, given)
	var out []string
	for _, kv := range os.Environ() {
		k, v, _ := cutEq(kv)
		if dropFolders && isTestFolder(k, v) {
			continue
		}
		switch k {
		case "TMUX", "TMUX_PANE", "ITERM_SESSION_ID", "TERM_PROGRAM", "PANETEAM_TEAM",
			"PANETEAM_AGENT", "PANETEAM_ROOT", "PANETEAM_BACKEND", "CLAUDE_CONFIG_DIR", "PANETEAM_MCP_BIN", "PANETEAM_LEAD_VERIFY_KEY":
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

func cutEq(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
