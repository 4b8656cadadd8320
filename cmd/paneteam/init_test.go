package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// Every keybinding, status-line refresh and shell-loop send is one
// paneteam process (issue 15), so whatever a package does when it is
// initialised is paid by every command. Package initialisation must not
// read or write files, read the environment or start processes: that work
// belongs to the command that needs it, on first use.

const modulePath = "github.com/paneteam/paneteam"

// forbiddenPkgs are the packages whose functions (and the methods of
// whose values, such as os.Stdin.Read) do I/O, read the environment or
// start processes. A call rooted in one of them from an init function or
// a package-level variable's initialiser, directly or through functions
// of the module, fails TestNoIOAtPackageInit.
var forbiddenPkgs = map[string]bool{
	"os": true, "os/exec": true, "os/user": true, "os/signal": true,
	"io/ioutil": true, "net": true, "net/http": true,
	"syscall": true, "golang.org/x/sys/unix": true,
}

// forbiddenFuncs are I/O functions of otherwise harmless packages, and
// compiling a regular expression: each small pattern compiled at package
// initialisation cost every process about 1% of a `paneteam send`
// (bench/startup), and TestPackageInitIsCheap's byte count does not see
// a small one. A sync.OnceValue compiles it for the command that uses it.
var forbiddenFuncs = map[string]map[string]bool{
	"path/filepath": {"Abs": true, "EvalSymlinks": true, "Glob": true, "Walk": true, "WalkDir": true},
	"io/fs":         {"ReadFile": true, "ReadDir": true, "Stat": true, "WalkDir": true, "Glob": true},
	"regexp":        {"MustCompile": true, "Compile": true, "MustCompilePOSIX": true, "CompilePOSIX": true, "MatchString": true, "Match": true},
}

// TestNoIOAtPackageInit reads the module's source: init functions and
// package-level variable initialisers, and the module's own functions they
// call (methods are not followed: TestVersionDoesNoIO catches those when
// they run).
func TestNoIOAtPackageInit(t *testing.T) {
	m := loadModule(t, testutil.ModuleRoot())
	if len(m.pkgs) < 10 {
		t.Fatalf("read %d packages of the module, expected all of them", len(m.pkgs))
	}
	var found []string
	for _, p := range m.pkgs {
		if testSupport(p.path) {
			// Never linked into a program: testutil's init gives every
			// test process folders of its own on purpose (docs/TESTING.md).
			continue
		}
		for _, f := range p.files {
			for _, d := range f.ast.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.Name == "init" {
						found = append(found, m.check(p, f, d.Body, p.path+": init()")...)
					}
				case *ast.GenDecl:
					if d.Tok != token.VAR {
						continue
					}
					for _, s := range d.Specs {
						for i, v := range s.(*ast.ValueSpec).Values {
							name := p.path + ": var initialiser"
							if i < len(s.(*ast.ValueSpec).Names) {
								name = p.path + ": var " + s.(*ast.ValueSpec).Names[i].Name
							}
							found = append(found, m.check(p, f, v, name)...)
						}
					}
				}
			}
		}
	}
	for _, f := range found {
		t.Error(f)
	}
}

// testSupport reports a package of test support, by the layer table's
// rule (docs/ARCHITECTURE.md): under internal/tests, or named *test.
func testSupport(path string) bool {
	rel := strings.TrimPrefix(path, modulePath+"/")
	return strings.HasPrefix(rel, "internal/tests/") || strings.HasSuffix(rel, "test")
}

type srcFile struct {
	ast     *ast.File
	imports map[string]string // local name -> import path
}

type srcPkg struct {
	path  string
	files []*srcFile
	funcs map[string]*ast.FuncDecl // package-level functions (not methods)
	file  map[string]*srcFile      // the file declaring each function
}

type module struct {
	fset *token.FileSet
	pkgs map[string]*srcPkg
	seen map[*ast.FuncDecl]bool
}

func loadModule(t *testing.T, root string) *module {
	t.Helper()
	m := &module{fset: token.NewFileSet(), pkgs: map[string]*srcPkg{}, seen: map[*ast.FuncDecl]bool{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".") || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(m.fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		ip := modulePath
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		p := m.pkgs[ip]
		if p == nil {
			p = &srcPkg{path: ip, funcs: map[string]*ast.FuncDecl{}, file: map[string]*srcFile{}}
			m.pkgs[ip] = p
		}
		sf := &srcFile{ast: af, imports: map[string]string{}}
		for _, is := range af.Imports {
			path, _ := strconv.Unquote(is.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if is.Name != nil {
				name = is.Name.Name
			} else if strings.HasPrefix(name, "v") && strings.Count(path, "/") > 1 {
				if _, err := strconv.Atoi(name[1:]); err == nil { // github.com/x/y/v2
					name = path[:strings.LastIndex(path, "/")]
					name = name[strings.LastIndex(name, "/")+1:]
				}
			}
			sf.imports[name] = path
		}
		p.files = append(p.files, sf)
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body != nil {
				p.funcs[fd.Name.Name] = fd
				p.file[fd.Name.Name] = sf
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// check reports forbidden calls that evaluating n runs. Function literals
// are not entered unless called on the spot: a sync.OnceValue(func...)
// runs on first use, which is the point.
func (m *module) check(p *srcPkg, f *srcFile, n ast.Node, where string) []string {
	var found []string
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt:
			found = append(found, fmt.Sprintf("%s: %s starts a goroutine at package initialisation", m.fset.Position(n.Pos()), where))
			return false
		case *ast.CallExpr:
			if lit, ok := n.Fun.(*ast.FuncLit); ok {
				found = append(found, m.check(p, f, lit.Body, where)...)
				return true
			}
			found = append(found, m.call(p, f, n, where)...)
		}
		return true
	})
	return found
}

func (m *module) call(p *srcPkg, f *srcFile, c *ast.CallExpr, where string) []string {
	pos := m.fset.Position(c.Pos())
	switch fun := c.Fun.(type) {
	case *ast.Ident: // a function of the same package
		if fd := p.funcs[fun.Name]; fd != nil {
			return m.follow(p, fd, where+" -> "+fun.Name+"()")
		}
	case *ast.SelectorExpr:
		root := fun.X
		for {
			s, ok := root.(*ast.SelectorExpr)
			if !ok {
				break
			}
			root = s.X
		}
		id, ok := root.(*ast.Ident)
		if !ok {
			return nil
		}
		ip, ok := f.imports[id.Name]
		if !ok {
			return nil
		}
		name := fun.Sel.Name
		if forbiddenPkgs[ip] || forbiddenFuncs[ip][name] {
			return []string{fmt.Sprintf("%s: %s calls %s.%s at package initialisation: defer it to first use",
				pos, where, ip, name)}
		}
		if q := m.pkgs[ip]; q != nil && fun.X == root {
			if fd := q.funcs[name]; fd != nil {
				return m.follow(q, fd, where+" -> "+ip+"."+name+"()")
			}
		}
	}
	return nil
}

func (m *module) follow(p *srcPkg, fd *ast.FuncDecl, where string) []string {
	if m.seen[fd] {
		return nil
	}
	m.seen[fd] = true
	defer delete(m.seen, fd)
	return m.check(p, p.file[fd.Name.Name], fd.Body, where)
}

// runtimeFiles are what the Go runtime itself reads at start (transparent
// huge page size, the cgroup CPU limit for GOMAXPROCS), and SystemEnv's
// os.Executable; nothing else may be touched by `paneteam --version`.
var runtimeFiles = regexp.MustCompile(`^(/sys/kernel/mm/transparent_hugepage/.*|/proc/self/(cgroup|mountinfo|exe)|/sys/fs/cgroup/.*)$`)

// TestVersionDoesNoIO runs the built binary's package initialisation (and
// --version, which does nothing more than print) under strace, and fails
// on any file it touches, process it starts or socket it opens beyond the
// Go runtime's own. It catches what reading the source cannot: methods,
// dependencies, generated code.
func TestVersionDoesNoIO(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		if testutil.RequireAll() {
			t.Fatal("strace is not installed (PANETEAM_REQUIRE_ALL=1)")
		}
		fmt.Println("SKIPPED: TestVersionDoesNoIO: strace is not installed; TestNoIOAtPackageInit still reads the source")
		t.Skip("strace is not installed")
	}
	bin := buildPlain(t)
	log := filepath.Join(t.TempDir(), "trace")
	home := t.TempDir()
	cmd := exec.Command(strace, "-f", "-qq", "-o", log, "-e", "trace=%file,%process,%network,%ipc", bin, "--version")
	cmd.Env = testutil.Env("HOME="+home, "PANETEAM_ROOT="+home, "TMUX=/nonexistent/trap,1,0", "TMUX_PANE=%0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "ptrace") || strings.Contains(string(out), "Operation not permitted") {
			if testutil.RequireAll() {
				t.Fatalf("strace cannot trace here: %s", out)
			}
			fmt.Println("SKIPPED: TestVersionDoesNoIO: strace cannot trace here:", strings.TrimSpace(string(out)))
			t.Skip("ptrace not permitted")
		}
		t.Fatalf("strace paneteam --version: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "paneteam version") {
		t.Fatalf("--version printed %q", out)
	}
	tr, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	call := regexp.MustCompile(`^\d+\s+([a-z0-9_]+)\((.*)$`)
	quoted := regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	sc := bufio.NewScanner(tr)
	sc.Buffer(nil, 1<<20)
	execs := 0
	for sc.Scan() {
		line := sc.Text()
		mm := call.FindStringSubmatch(line)
		if mm == nil {
			continue // "resumed", exits, signals
		}
		name, args := mm[1], mm[2]
		switch name {
		case "clone", "clone3", "exit", "exit_group", "wait4", "kill", "tgkill":
			continue // the runtime's threads and preemption signals
		case "execve":
			if execs++; execs == 1 && strings.Contains(args, bin) {
				continue // the binary itself
			}
			t.Errorf("paneteam --version started a process: %s", line)
			continue
		}
		var path string
		if q := quoted.FindStringSubmatch(args); q != nil {
			path = q[1]
		}
		if path != "" && runtimeFiles.MatchString(path) {
			continue
		}
		t.Errorf("paneteam --version did I/O beyond the Go runtime's: %s", line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestNoNetOrCgo keeps package net (and with it runtime/cgo) out of the
// binary: where a C compiler is found, go install builds with cgo, and
// net then makes the binary link libc dynamically for its resolver, which
// costs about 0.9 ms of CPU at every start (bench/startup). paneteam's
// sockets are Unix sockets (ptyhost/unixsock.go), which need neither.
func TestNoNetOrCgo(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/paneteam")
	cmd.Dir = testutil.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "net" || p == "runtime/cgo" || p == "os/user" {
			t.Errorf("cmd/paneteam imports %s (see `go list -deps`, `go mod why`): it makes cgo builds link libc dynamically", p)
		}
	}
}

// TestNoBubbleTea keeps Bubble Tea and the terminal libraries under it out
// of paneteam: they do work at every start of a program that links them
// (key and kitty-protocol tables, x/ansi's parser and width tables,
// go-runewidth's locale lookup), which was a third of the instructions of
// a `paneteam send` (callgrind, bench/RESULTS.md), and Bubble Tea v2 links
// os/user through xo/terminfo, which makes a cgo build link libc
// dynamically. The dashboard is drawn by cmd/paneteam-dashboard, which
// 'paneteam dashboard' becomes.
//
// Charm's modules are refused by prefix, so a new one the next release
// pulls in (as v2 brought ultraviolet and colorprofile) is caught too;
// x/term is allowed: raw mode and window sizes, no tables, used by the
// command line itself.
func TestNoBubbleTea(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/paneteam")
	cmd.Dir = testutil.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if dashboardOnly(p) {
			t.Errorf("cmd/paneteam links %s (see `go list -deps`, `go mod why`): the dashboard's libraries belong to cmd/paneteam-dashboard", p)
		}
	}
}

// dashboardOnly reports whether package p belongs to the dashboard's
// program only: Bubble Tea (charm.land/bubbletea/v2), Charm's libraries
// beside it (ultraviolet, colorprofile, x/ansi, x/termios, ...) and the
// width and terminfo libraries they use.
func dashboardOnly(p string) bool {
	if p == "github.com/charmbracelet/x/term" {
		return false
	}
	for _, prefix := range []string{
		"charm.land/", "github.com/charmbracelet/",
		"github.com/mattn/go-runewidth", "github.com/rivo/uniseg", "github.com/clipperhouse/",
		"github.com/xo/terminfo", "github.com/lucasb-eyer/go-colorful",
		modulePath + "/internal/ui/",
	} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// TestDashboardOnlyNamesWhatTheDashboardLinks keeps TestNoBubbleTea
// looking at the right names: each module it refuses by name is linked
// by cmd/paneteam-dashboard, so a rename of Bubble Tea's module (as
// github.com/charmbracelet/bubbletea became charm.land/bubbletea/v2)
// cannot leave the check guarding a path nothing imports.
func TestDashboardOnlyNamesWhatTheDashboardLinks(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/paneteam-dashboard")
	cmd.Dir = testutil.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, want := range []string{"charm.land/bubbletea/v2", "github.com/charmbracelet/ultraviolet", "github.com/charmbracelet/x/ansi",
		"github.com/mattn/go-runewidth", "github.com/xo/terminfo", modulePath + "/internal/ui/dashboard"} {
		if !dashboardOnly(want) {
			t.Errorf("dashboardOnly(%q) = false", want)
		}
		found := false
		for _, p := range deps {
			found = found || p == want
		}
		if !found {
			t.Errorf("cmd/paneteam-dashboard does not link %s: TestNoBubbleTea guards a module the dashboard no longer uses; update both", want)
		}
	}
}

// TestStartAsksTheTerminalNothing runs `paneteam --version` on a terminal
// that says it is an xterm, and fails on anything written beside the
// version: a library that queries the terminal at package initialisation
// (background colour, cursor position; Bubble Tea 1.x does, through Lip
// Gloss) would write to the person's terminal from every command, wait up
// to seconds for an answer and could eat their typeahead.
func TestStartAsksTheTerminalNothing(t *testing.T) {
	bin := buildPlain(t)
	cmd := exec.Command(bin, "--version")
	cmd.Env = testutil.Env("TERM=xterm-256color", "COLORTERM=truecolor")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out, _ := io.ReadAll(tty) // EIO once the process has exited
	if err := cmd.Wait(); err != nil {
		t.Fatalf("paneteam --version: %v\n%q", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "paneteam version dev" {
		t.Errorf("paneteam --version wrote %q to the terminal, want only the version", out)
	}
}

// TestPackageInitIsCheap fails when a paneteam package's initialisation
// allocates more than a few kilobytes (GODEBUG=inittrace=1): work such as
// compiling a regular expression belongs in a sync.OnceValue, paid by the
// command that uses it, not by every keybinding and status-line refresh.
// (A pattern with a repetition count like {1,300} once cost 0.8 ms and
// 500 KB at every start.) Allocation is counted rather than time, which
// a busy machine would make noisy.
func TestPackageInitIsCheap(t *testing.T) {
	bin := buildPlain(t)
	const limit = 16 << 10
	seen := 0
	for _, p := range initTrace(t, bin) {
		if !strings.HasPrefix(p.name, "github.com/paneteam/paneteam/") {
			continue
		}
		seen++
		if p.bytes > limit {
			t.Errorf("%s allocates %d bytes at initialisation (limit %d): defer that work to first use", p.name, p.bytes, limit)
		}
	}
	if seen == 0 {
		t.Fatal("no paneteam package in the init trace")
	}
}

// buildPlain builds paneteam as users build it: testutil.Binary follows
// -race, and a race binary loads libc and reads /proc for the race runtime.
func buildPlain(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "paneteam")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join(testutil.ModuleRoot(), "cmd", "paneteam")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// initPkg is one package's line of GODEBUG=inittrace=1.
type initPkg struct {
	name  string
	bytes int
}

// initTrace runs `bin --version` with GODEBUG=inittrace=1 and returns what
// each package initialiser allocated, in the order they ran.
func initTrace(t *testing.T, bin string) []initPkg {
	t.Helper()
	cmd := exec.Command(bin, "--version")
	cmd.Env = testutil.Env("GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("paneteam --version: %v\n%s", err, out)
	}
	// init github.com/paneteam/paneteam/mailbox @0.9 ms, 0.80 ms clock, 521664 bytes, 1234 allocs
	line := regexp.MustCompile(`^init (\S+) @.*, (\d+) bytes,`)
	var pkgs []initPkg
	for _, l := range strings.Split(string(out), "\n") {
		if m := line.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[2])
			pkgs = append(pkgs, initPkg{m[1], n})
		}
	}
	return pkgs
}

// initBudget is what the initialisers of all the binary's packages, the
// dependencies' and the runtime's included, may allocate in total before
// main runs. They allocate about 46 KB (unicode tables 11 KB of it)
// since the dashboard's Bubble Tea moved to its own program; with it they
// allocated about 134 KB (Bubble Tea 95 KB), and with urfave/cli/v2 about
// 352 KB, 214 KB of it in blackfriday, v2's man-page renderer, which
// every process initialised and none used. 80 KiB leaves about 30 KB for
// dependencies to grow and Go releases to move tables around, and is less
// than any one mistake of that kind costs: a terminal UI, Markdown or
// template engine linked in, or a large regular expression compiled at
// init (TestPackageInitIsCheap covers paneteam's own).
const initBudget = 80 << 10

// TestInitAllocationBudget sums the bytes every package initialiser
// allocates (GODEBUG=inittrace=1) at `paneteam --version` and fails above
// initBudget: a dependency's init is paid by every keybinding and
// status-line refresh as much as paneteam's own (issue 15). Allocation is
// counted rather than time, which a busy machine would make noisy.
// PANETEAM_INIT_BUDGET_BINARY points it at another build (a binary built
// on urfave/cli/v2, say) to check that it fails there.
func TestInitAllocationBudget(t *testing.T) {
	bin := os.Getenv("PANETEAM_INIT_BUDGET_BINARY")
	if bin == "" {
		bin = buildPlain(t)
	}
	pkgs := initTrace(t, bin)
	total := 0
	for _, p := range pkgs {
		total += p.bytes
	}
	if len(pkgs) < 10 {
		t.Fatalf("read %d packages from the init trace, expected all of them", len(pkgs))
	}
	if total > initBudget {
		sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].bytes > pkgs[j].bytes })
		var top []string
		for _, p := range pkgs[:min(5, len(pkgs))] {
			top = append(top, fmt.Sprintf("%s %d", p.name, p.bytes))
		}
		t.Errorf("package initialisers allocate %d bytes in all (budget %d); the largest: %s. "+
			"Find who links them with `go mod why -m` and keep the work out of init", total, initBudget, strings.Join(top, ", "))
	}
}
