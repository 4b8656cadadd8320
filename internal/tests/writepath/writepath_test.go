// Package writepath holds the test that keeps internal/core/post the one
// writer of an inbox entry (docs/ARCHITECTURE.md): every production call
// of mailbox.(*Inbox).Send, Append or SignedBy outside post and mailbox
// itself fails it, as internal/tests/layers fails on an upward import.
// It type-checks the module's packages, so a method value, a renamed
// import or an embedded *Inbox is found as surely as a plain call.
package writepath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/paneteam/paneteam"

// writers are mailbox.(*Inbox)'s methods that put an entry into an inbox.
var writers = []string{"Send", "Append", "SignedBy"}

// allowed are the packages that may call them: mailbox itself, and post,
// which every other writer goes through.
var allowed = map[string]bool{
	module + "/mailbox":            true,
	module + "/internal/core/post": true,
}

// fixtures reports whether a package builds fixtures rather than writes
// as paneteam: test support (the layer table's last row: under
// internal/tests, or named *test) and the benchmarks, which lay out
// inboxes of a given size to measure against, as a test's own files do.
func fixtures(path string) bool {
	rel := strings.TrimPrefix(path, module+"/")
	return strings.HasPrefix(rel, "internal/tests/") || strings.HasSuffix(rel, "test") ||
		rel == "bench" || strings.HasPrefix(rel, "bench/")
}

// exceptions are single sites, as "path/in/module.go: Method", that write
// around post for now, each with the reason it may. Keep it empty: a
// site here is a writer to route through post.
var exceptions = map[string]string{}

// A package as go list tells it.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
	Error      *struct{ Err string }
}

// list is every package the module's packages build from, with its
// export data (go list -export compiles what is not in the build cache).
func list(t *testing.T, root string) (mine []pkg, export map[string]string) {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(gobin, "list", "-e", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Standard,Error", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	export = map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		export[p.ImportPath] = p.Export
		if p.ImportPath == module || strings.HasPrefix(p.ImportPath, module+"/") {
			mine = append(mine, p)
		}
	}
	return mine, export
}

// moduleRoot is the folder of go.mod above the test's own.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// calls type-checks p's production files (tests may write fixtures as
// they like) and returns each use of a writer, as "file.go:line: Method",
// the file relative to root.
func calls(t *testing.T, root string, p pkg, imp types.Importer, isWriter func(types.Object) bool) []string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
		t.Fatalf("type-check %s: %v", p.ImportPath, err)
	}
	var out []string
	for id, obj := range info.Uses {
		if !isWriter(obj) {
			continue
		}
		pos := fset.Position(id.Pos())
		rel, err := filepath.Rel(root, pos.Filename)
		if err != nil {
			rel = pos.Filename
		}
		out = append(out, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), pos.Line, obj.Name()))
	}
	return out
}

// TestOnlyPostWrites fails on each call of a mailbox writer outside post
// and mailbox, naming the site, and on an exception no longer used.
func TestOnlyPostWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module's export data")
	}
	root := moduleRoot(t)
	mine, export := list(t, root)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := export[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	mb, err := imp.Import(module + "/mailbox")
	if err != nil {
		t.Fatal(err)
	}
	inbox, ok := mb.Scope().Lookup("Inbox").(*types.TypeName)
	if !ok {
		t.Fatal("mailbox has no type Inbox")
	}
	want := map[string]bool{}
	for _, name := range writers {
		obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(inbox.Type()), true, mb, name)
		fn, ok := obj.(*types.Func)
		if !ok {
			t.Fatalf("mailbox.(*Inbox) has no method %s", name)
		}
		want[fn.FullName()] = true
	}
	isWriter := func(obj types.Object) bool {
		fn, ok := obj.(*types.Func)
		return ok && want[fn.Origin().FullName()]
	}
	var bad []string
	used := map[string]bool{}
	for _, p := range mine {
		if allowed[p.ImportPath] || fixtures(p.ImportPath) || len(p.GoFiles) == 0 {
			continue
		}
		for _, site := range calls(t, root, p, imp, isWriter) {
			file, line, _ := strings.Cut(site, ":")
			_, method, _ := strings.Cut(line, ": ")
			key := file + ": " + method
			if _, ok := exceptions[key]; ok {
				used[key] = true
				continue
			}
			bad = append(bad, site)
		}
	}
	sort.Strings(bad)
	for _, site := range bad {
		t.Errorf("%s: writes an inbox entry around internal/core/post: write it through post (Post.Send, SendLead, SendFrame, AskShutdown; post.As for a teammate's own post)", site)
	}
	for key := range exceptions {
		if !used[key] {
			t.Errorf("exception %q is no longer used: remove it from the list", key)
		}
	}
}
