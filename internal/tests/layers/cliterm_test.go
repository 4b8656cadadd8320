package layers

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// internal/cli is flags, output and exit codes. The person's terminal is
// taken over in one place, internal/term/tty (raw mode, its size,
// following SIGWINCH); the state folder, the lead's keys and a
// teammate's verifier come from the run's factory (internal/core/factory).
// These modules are what a second raw mode, resize loop or state-folder
// reckoning in the command line would import, each with where it goes.
var cliForbidden = map[string]string{
	"github.com/charmbracelet/x/term":                             "take the terminal through internal/term/tty (Take, MakeRaw, SizeOf)",
	"github.com/creack/pty":                                       "take the terminal through internal/term/tty (Take, MakeRaw, SizeOf)",
	"github.com/paneteam/paneteam/internal/claudecode/provenance": "reach the state folder, keys and verifier through the run's factory (Env.factory, internal/core/factory)",
}

// Every non-test file of internal/cli, whatever its build tags: none
// imports a terminal or pty module or the key store, and none handles
// SIGWINCH.
func TestCLIDoesNotTakeTheTerminal(t *testing.T) {
	dir := filepath.Join(moduleRoot(t), "internal", "cli")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasSuffix(name, "_test.go") {
			continue // tests drive real terminals with creack/pty
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for bad, fix := range cliForbidden {
				if path == bad || strings.HasPrefix(path, bad+"/") {
					t.Errorf("internal/cli/%s imports %s: %s, not in the command line", name, path, fix)
				}
			}
		}
		if strings.Contains(string(src), "SIGWINCH") {
			t.Errorf("internal/cli/%s handles SIGWINCH: follow the window's size with internal/term/tty (Take or Follow)", name)
		}
	}
}
