package frontends

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The library and the core speak no front end's words: an error made in
// team, mailbox, lockfile or internal/core names no flag ("--owner") and
// no paneteam command ("paneteam task list"), because a library user and
// the MCP server read it too. Each front end words the typed error itself
// (internal/cli/errwords.go, the MCP server's tools).
func TestCoreErrorsNameNoFrontEndWords(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	words := frontEndWords(t, root)
	fset := token.NewFileSet()
	for _, dir := range []string{"team", "mailbox", "lockfile", filepath.Join("internal", "core")} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			for _, lit := range errorLiterals(f) {
				if w := words.FindString(lit.text); w != "" {
					t.Errorf("%s:%d: an error names the front end's %q: %q (make it a typed error and word it in the front end)",
						rel, fset.Position(lit.pos).Line, w, lit.text)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// frontEndWords matches "--" and a letter, or "paneteam " and one of the
// commands 'paneteam --help' lists.
func frontEndWords(t *testing.T, root string) *regexp.Regexp {
	help, err := os.ReadFile(filepath.Join(root, "internal", "cli", "roothelp.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(help), "COMMANDS:\n")
	if !ok {
		t.Fatal("roothelp.txt lists no COMMANDS")
	}
	var cmds []string
	for _, line := range strings.Split(list, "\n") {
		if !strings.HasPrefix(line, "   ") || strings.HasPrefix(line, "    ") {
			continue
		}
		if f := strings.Fields(line); len(f) > 0 {
			cmds = append(cmds, regexp.QuoteMeta(strings.TrimSuffix(f[0], ",")))
		}
	}
	if len(cmds) < 10 {
		t.Fatalf("found only commands %q in roothelp.txt", cmds)
	}
	return regexp.MustCompile(`--[a-zA-Z]|\bpaneteam (` + strings.Join(cmds, "|") + `)\b`)
}

type literal struct {
	pos  token.Pos
	text string
}

// errorLiterals are the strings of fmt.Errorf and errors.New calls, of
// error values built field by field (&UsageError{Msg: "..."}) and of every
// Error method, each one's literals also joined (a text split over
// "a" + "b" is read whole).
func errorLiterals(f *ast.File) []literal {
	var out []literal
	collect := func(n ast.Node) {
		var all []string
		ast.Inspect(n, func(n ast.Node) bool {
			if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING {
				if s, err := strconv.Unquote(b.Value); err == nil {
					out = append(out, literal{b.Pos(), s})
					all = append(all, s)
				}
			}
			return true
		})
		if len(all) > 1 {
			out = append(out, literal{n.Pos(), strings.Join(all, "")})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Recv != nil && n.Name.Name == "Error" && n.Body != nil {
				collect(n.Body)
				return false
			}
		case *ast.CompositeLit:
			if strings.HasSuffix(typeName(n.Type), "Error") {
				collect(n)
				return false
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok &&
					(pkg.Name == "fmt" && sel.Sel.Name == "Errorf" || pkg.Name == "errors" && sel.Sel.Name == "New") {
					collect(n)
					return false
				}
			}
		}
		return true
	})
	return out
}

// typeName is the name of a composite literal's type, without its package.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}
