package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The shape every command keeps (docs/ARCHITECTURE.md, "Front ends"):
// its flags are read into an options value in one place (the command's
// Action, or a read* function), and a run function takes those options,
// calls the core and prints. Two things break that shape, and this test
// finds both from the source:
//
//   - a helper that reads flags by name off the command: any function
//     taking a *ucli.Command that is neither a command's builder
//     (…Command) nor an options reader (read…);
//   - a command using another command's helpers: a file that builds a
//     command refers to something declared in another file that builds a
//     command of another family. A family is a command and its parts or
//     subcommands, its files named alike (task.go, task_create.go, …;
//     spawn_pane.go, spawn_host.go, …). What several commands share lives
//     in a file that builds none (flags.go, scope.go, output.go, …).

// shapeFiles are the package's files, parsed, without its tests.
func shapeFiles(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = f
	}
	return fset, files
}

// takesCommand reports whether fn has a *ucli.Command parameter.
func takesCommand(fn *ast.FuncType) bool {
	for _, p := range fn.Params.List {
		if star, ok := p.Type.(*ast.StarExpr); ok {
			if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Command" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "ucli" {
					return true
				}
			}
		}
	}
	return false
}

// buildsCommand reports whether f declares a command's builder: a
// function named …Command that returns a *ucli.Command.
func buildsCommand(f *ast.File) bool {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || !strings.HasSuffix(fd.Name.Name, "Command") || fd.Type.Results == nil {
			continue
		}
		for _, r := range fd.Type.Results.List {
			if star, ok := r.Type.(*ast.StarExpr); ok {
				if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Command" {
					return true
				}
			}
		}
	}
	return false
}

func TestHelpersDoNotReadFlagsOffTheCommand(t *testing.T) {
	fset, files := shapeFiles(t)
	var bad []string
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !takesCommand(fd.Type) {
				continue
			}
			name := fd.Name.Name
			if strings.HasSuffix(name, "Command") || strings.HasPrefix(name, "read") || cliHooks[name] {
				continue
			}
			bad = append(bad, fset.Position(fd.Pos()).Filename+": "+name)
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s takes the *ucli.Command: read its flags into the command's options (a read… function) and pass the values", b)
	}
}

func TestCommandsDoNotUseEachOthersHelpers(t *testing.T) {
	fset, files := shapeFiles(t)
	declared := map[string]string{} // top-level name -> its file
	for n, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declared[d.Name.Name] = n
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declared[s.Name.Name] = n
					case *ast.ValueSpec:
						for _, id := range s.Names {
							declared[id.Name] = n
						}
					}
				}
			}
		}
	}
	seen := map[string]bool{}
	var bad []string
	for n, f := range files {
		if !buildsCommand(f) {
			continue
		}
		// What a file names but does not declare itself (the parser's
		// Unresolved) is the package's, the universe's or an import's.
		for _, id := range f.Unresolved {
			from, ok := declared[id.Name]
			if !ok || from == n || !buildsCommand(files[from]) || family(from) == family(n) {
				continue
			}
			key := n + " uses " + id.Name + " of " + from
			if !seen[key] {
				seen[key] = true
				bad = append(bad, key+" ("+fset.Position(id.Pos()).String()+")")
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: move what both need to a file that builds no command", b)
	}
}

// family is the command a file belongs to: its name's first word.
func family(file string) string {
	name := strings.TrimSuffix(file, ".go")
	if i := strings.IndexByte(name, '_'); i > 0 {
		name = name[:i]
	}
	return name
}

// cliHooks are urfave/cli's own hooks, which it calls with the command.
var cliHooks = map[string]bool{"onUsageError": true, "bindEnv": true}
