// Package publicapi checks that the packages at the root of the module
// (team, mailbox, lockfile, tmux, iterm2, layout) can be used by a program
// outside it: no exported declaration may name a type from an internal
// package, which such a program cannot import and so cannot name, declare
// or implement.
package publicapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/paneteam/paneteam"

// listed is what `go list -export -json` says of one package.
type listed struct {
	ImportPath string
	Export     string
	Standard   bool
}

// testHelpers are root packages that exist for this module's own tests:
// iterm2/it2test drives the fake it2 (testdata/fakeit2) through the test
// harness of the native terminals (internal/panes/native/nativetest), and
// hands out that harness's types. It is not part of the library.
var testHelpers = map[string]bool{
	module + "/iterm2/it2test": true,
}

// rootPackages lists the module's packages outside internal/, cmd/,
// bench/ and docs/: the library a program outside the module imports.
func rootPackages(t *testing.T) []string {
	t.Helper()
	out := goCmd(t, "list", module+"/...")
	var roots []string
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		top, _, _ := strings.Cut(rel, "/")
		switch top {
		case "internal", "cmd", "bench", "docs":
			continue
		}
		if isInternal(p) || testHelpers[p] {
			continue
		}
		roots = append(roots, p)
	}
	if len(roots) == 0 {
		t.Fatal("go list found no root packages")
	}
	return roots
}

func goCmd(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleDir(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// moduleDir is the module's root, three levels above this package.
func moduleDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// loadPackages type-checks nothing itself: it reads the compiler's export
// data of the root packages and of everything they import, as `go list
// -export` leaves it in the build cache.
func loadPackages(t *testing.T, roots []string) map[string]*types.Package {
	t.Helper()
	args := append([]string{"list", "-export", "-deps", "-json"}, roots...)
	dec := json.NewDecoder(bytes.NewReader(goCmd(t, args...)))
	exports := map[string]string{}
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list: %v", err)
		}
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	pkgs := map[string]*types.Package{}
	for _, r := range roots {
		pkg, err := imp.Import(r)
		if err != nil {
			t.Fatalf("importing %s: %v", r, err)
		}
		pkgs[r] = pkg
	}
	return pkgs
}

// TestNoInternalTypesInPublicAPI walks every exported declaration of the
// root packages (functions, methods, struct fields, embedded types,
// interface methods, variables, constants, type definitions) and of every
// unexported type they lead to, and fails naming each place that names a
// type from an internal package.
func TestNoInternalTypesInPublicAPI(t *testing.T) {
	roots := rootPackages(t)
	pkgs := loadPackages(t, roots)
	var found []string
	for _, r := range roots {
		found = append(found, InternalRefs(pkgs[r])...)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Error(f)
	}
	if len(found) == 0 {
		t.Logf("checked %d packages: %s", len(roots), strings.Join(roots, " "))
	}
}
