package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v3"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// The table's names are what a run matches to build one command: a name
// that differs from its constructor's would make the command unreachable.
func TestCommandTableNames(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commandTable() {
		cmd := c.build(Env{Vars: map[string]string{}})
		if cmd.Name != c.name {
			t.Errorf("commandTable lists %q but its constructor builds %q", c.name, cmd.Name)
		}
		if len(cmd.Aliases) > 0 {
			t.Errorf("%s has aliases %v: commandsFor matches names only; add them to the table's lookup", c.name, cmd.Aliases)
		}
		if seen[c.name] {
			t.Errorf("%s is listed twice", c.name)
		}
		seen[c.name] = true
	}
}

// A run builds only what it calls; help, listings and completion of
// command names see every command.
func TestOnlyTheCommandRunIsBuilt(t *testing.T) {
	env := Env{Vars: map[string]string{}}
	for _, tc := range []struct {
		args []string
		want []string // nil: every command
	}{
		{[]string{"paneteam", "send", "--to", "x", "hi"}, []string{"send"}},
		{[]string{"paneteam", "--root", "/r", "--lock-timeout", "1s", "status", "--format", "tmux"}, []string{"status"}},
		{[]string{"paneteam", "--root=/r", "task", "list"}, []string{"task"}},
		{[]string{"paneteam", "send", "--generate-bash-completion"}, []string{"send"}},
		{[]string{"paneteam", "--version"}, []string{}},
		{[]string{"paneteam", "-v"}, []string{}},
		{[]string{"paneteam"}, nil},
		{[]string{"paneteam", "--help"}, nil},
		{[]string{"paneteam", "help", "send"}, nil},
		{[]string{"paneteam", "--generate-bash-completion"}, nil},
		{[]string{"paneteam", "sned"}, nil},
	} {
		var got []string
		for _, c := range commandsFor(env, tc.args) {
			got = append(got, c.Name)
		}
		want := tc.want
		if want == nil {
			want = nil
			for _, c := range commandTable() {
				want = append(want, c.name)
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%q builds %v, want %v", tc.args, got, want)
		}
	}
}

func TestHelpAndCompletionListEveryCommand(t *testing.T) {
	_, vars := ptRootVars(t)
	help, _, code := ptRun(t, vars, "", "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	topic, _, code := ptRun(t, vars, "", "help")
	if code != 0 || topic != help {
		t.Fatalf("help: exit %d, and it differs from --help:\n%s", code, topic)
	}
	// Completion reads os.Args (urfave/cli), so it runs the binary.
	complete := func(args ...string) string {
		cmd := exec.Command(testutil.Binary(t), append(args, "--generate-bash-completion")...)
		cmd.Env = testutil.Env("HOME=" + vars["HOME"])
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("completion of %q: %v", args, err)
		}
		return string(out)
	}
	compl := complete()
	names := map[string]bool{}
	for _, l := range strings.Fields(compl) {
		names[strings.SplitN(l, ":", 2)[0]] = true
	}
	for _, c := range commands(Env{Vars: vars}) {
		if c.Hidden {
			continue
		}
		if !strings.Contains(help, "\n   "+c.Name+" ") && !strings.Contains(help, "\n   "+c.Name+",") {
			t.Errorf("--help does not list %s:\n%s", c.Name, help)
		}
		if !names[c.Name] {
			t.Errorf("completion does not offer %s: %q", c.Name, compl)
		}
	}
	sub, _, code := ptRun(t, vars, "", "help", "send")
	if code != 0 || !strings.Contains(sub, "paneteam send - ") || !strings.Contains(sub, "--to") {
		t.Errorf("help send: exit %d\n%s", code, sub)
	}
	if flags := complete("send", "--t"); !strings.Contains(flags, "--to") || !strings.Contains(flags, "--team") {
		t.Errorf("send's completion offers no flags: %q", flags)
	}
}

// A command constructor (func xxxCommand(env Env) *ucli.Command) that is
// neither in commandTable nor a subcommand of another command is a command
// nobody can run: the usual slip when merging a new command written
// against the old list of constructor calls.
func TestEveryCommandIsInTheTable(t *testing.T) {
	inTable := map[string]bool{}
	for _, c := range commandTable() {
		name := runtime.FuncForPC(reflect.ValueOf(c.build).Pointer()).Name()
		inTable[name[strings.LastIndex(name, ".")+1:]] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	ctors := map[string]*ast.FuncDecl{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasSuffix(fd.Name.Name, "Command") || fd.Type.Results == nil ||
				len(fd.Type.Params.List) != 1 || len(fd.Type.Results.List) != 1 {
				continue
			}
			if res, ok := fd.Type.Results.List[0].Type.(*ast.StarExpr); ok {
				if sel, ok := res.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Command" {
					ctors[fd.Name.Name] = fd
				}
			}
		}
	}
	if len(ctors) < len(commandTable()) {
		t.Fatalf("found %d command constructors, fewer than the table's %d: the search is broken", len(ctors), len(commandTable()))
	}
	sub := map[string]bool{}
	for _, fd := range ctors {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok && id.Name != fd.Name.Name {
					sub[id.Name] = true
				}
			}
			return true
		})
	}
	for name := range ctors {
		if !inTable[name] && !sub[name] {
			t.Errorf("%s is not in commandTable (commands.go) nor a subcommand: add {\"NAME\", %s}", name, name)
		}
	}
}

// Completion scripts from urfave/cli v2, which people may have installed,
// ask with --generate-bash-completion and want bare names (v2's zsh
// script sets _CLI_ZSH_AUTOCOMPLETE_HACK=1 and wants "name:usage"); v3's
// own scripts (paneteam completion bash) ask with
// --generate-shell-completion and split "name:usage" themselves.
func TestCompletionForV2AndV3Scripts(t *testing.T) {
	_, vars := ptRootVars(t)
	complete := func(extra string, args ...string) []string {
		cmd := exec.Command(testutil.Binary(t), args...)
		cmd.Env = testutil.Env("HOME=" + vars["HOME"])
		if extra != "" {
			cmd.Env = append(cmd.Env, extra)
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("completion of %q: %v", args, err)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	has := func(lines []string, want string) bool {
		for _, l := range lines {
			if l == want {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"--generate-bash-completion"}, "send"},
		{"", []string{"send", "--t", "--generate-bash-completion"}, "--to"},
		{"_CLI_ZSH_AUTOCOMPLETE_HACK=1", []string{"--generate-bash-completion"}, "send:append a message to a teammate's inbox; exits 0 only once it is on disk"},
		{"", []string{"--generate-shell-completion"}, "send:append a message to a teammate's inbox; exits 0 only once it is on disk"},
		{"", []string{"send", "--t", "--generate-shell-completion"}, "--to:recipient's member name (repeat for several)"},
	} {
		if got := complete(tc.env, tc.args...); !has(got, tc.want) {
			t.Errorf("%s paneteam %q: no line %q in\n%s", tc.env, tc.args, tc.want, strings.Join(got, "\n"))
		}
	}
	// v3's completion scripts are printed by a hidden command.
	script := complete("", "completion", "bash")
	if !strings.Contains(strings.Join(script, "\n"), "--generate-shell-completion") {
		t.Errorf("paneteam completion bash printed no bash completion script:\n%s", strings.Join(script, "\n"))
	}
}

// Every flag of every command that names environment variables reads
// them from the environment captured at start (bindEnv), not from the
// live one urfave/cli would read: a flag type flagFields does not know
// would keep its variables here.
func TestEveryEnvFlagIsBound(t *testing.T) {
	app := newApp(Env{Vars: map[string]string{}}, []string{"paneteam"})
	bound := 0
	_ = app.Walk(func(c *ucli.Command) error {
		for _, f := range c.Flags {
			if _, _, _, ok := flagFields(f); !ok {
				t.Errorf("%s: flag %v is a %T, which flagFields does not know", c.Name, f.Names(), f)
			}
			if e, ok := f.(interface{ GetEnvVars() []string }); ok && len(e.GetEnvVars()) > 0 {
				t.Errorf("%s: flag %v still reads $%v from the live environment", c.Name, f.Names(), e.GetEnvVars())
			}
			if strings.Contains(f.String(), "[$") {
				bound++
			}
		}
		return nil
	})
	if bound < 5 {
		t.Errorf("only %d flags show their environment variables in their help; want every flag declared with ucli.EnvVars", bound)
	}
}
