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

// The person's terminal is taken over in one place, internal/term/tty
// (raw mode, its size, following SIGWINCH); internal/cli is flags, output
// and exit codes. These modules are what a second raw mode or resize
// loop in it would import.
var cliForbidden = []string{
	"github.com/charmbracelet/x/term",
	"github.com/creack/pty",
}

// cliNotYet names a file of internal/cli still allowed one forbidden
// import, until its owner moves it to internal/term/tty; the test fails
// once the import is gone, so the allowance does not outlive it.
var cliNotYet = map[string]string{}

// Every non-test file of internal/cli, whatever its build tags: none
// imports a terminal or pty module, and none handles SIGWINCH.
func TestCLIDoesNotTakeTheTerminal(t *testing.T) {
	dir := filepath.Join(moduleRoot(t), "internal", "cli")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	used := map[string]bool{}
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
			for _, bad := range cliForbidden {
				if path != bad && !strings.HasPrefix(path, bad+"/") {
					continue
				}
				if cliNotYet[name] == path {
					used[name] = true
					continue
				}
				t.Errorf("internal/cli/%s imports %s: take the terminal through internal/term/tty (Take, MakeRaw, SizeOf), not in the command line", name, path)
			}
		}
		if strings.Contains(string(src), "SIGWINCH") {
			t.Errorf("internal/cli/%s handles SIGWINCH: follow the window's size with internal/term/tty (Take or Follow)", name)
		}
	}
	for name, path := range cliNotYet {
		if !used[name] {
			t.Errorf("internal/cli/%s no longer imports %s: remove its entry from cliNotYet", name, path)
		}
	}
}
