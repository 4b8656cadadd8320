package native

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/iterm2"
	"github.com/paneteam/paneteam/iterm2/it2test"
)

// iterm2Setup is a fake iTerm2 (it2test) and a driver for it, whose
// paneteam and launch folder sit at paths a shell must be told to read
// literally (spaces, quotes, $).
type iterm2Setup struct {
	f   *it2test.Fake
	t   *iterm2Term
	dir string
}

func iterm2Start(t *testing.T, fl it2test.Flavor) iterm2Setup {
	t.Helper()
	f := it2test.New(t, fl)
	base := t.TempDir()
	binDir := filepath.Join(base, `pt bin\'s $HOME`)
	if err := os.Mkdir(binDir, 0o700); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(binDir, "paneteam")
	if err := os.Symlink(testutil.Binary(t), exe); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "launch $(x) 'q' ; \\b")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	term, err := New("iterm2", Env{
		Getenv: func(k string) string {
			if k == "ITERM_SESSION_ID" {
				return f.ITermSessionID
			}
			return ""
		},
		LookPath: f.LookPath,
		Exe:      exe,
		Dir:      dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	return iterm2Setup{f: f, t: term.(*iterm2Term), dir: dir}
}

// iterm2Typed returns the lines typed into a session with 'session run'
// (it2 ends each with a carriage return).
func iterm2Typed(t *testing.T, f *it2test.Fake, id Handle) []string {
	t.Helper()
	s := f.Session(string(id))
	if s == nil {
		t.Fatalf("fake iTerm2 has no session %s", id)
	}
	return s.Typed
}

// TestITerm2 holds every test of the driver against the fake it2.
func TestITerm2(t *testing.T) {
	t.Run("OpenTypesOnlyTheGateLineAndItRunsInEveryShell", iterm2TestGateLine)
	t.Run("Placement", iterm2TestPlacement)
	t.Run("OwnTab", iterm2TestOwnTab)
	t.Run("CloseAndList", iterm2TestCloseAndList)
	t.Run("Probe", iterm2TestProbe)
	t.Run("DeadTargetLeavesNoLaunchFile", iterm2TestDeadTarget)
}

// Open types exactly 'exec <paneteam> pane-exec <file>' and nothing of
// the argv; that line, run by bash, zsh and fish as a person's shell
// would run it, starts the program with its argv, env and cwd.
func iterm2TestGateLine(t *testing.T) {
	ctx := context.Background()
	for _, shell := range []struct {
		name string
		args []string
	}{
		{"bash", []string{"--norc", "--noprofile", "-c"}},
		{"zsh", []string{"-f", "-c"}},
		{"fish", []string{"--no-config", "-c"}},
	} {
		t.Run(shell.name, func(t *testing.T) {
			sh := testutil.RequireTool(t, shell.name)
			s := iterm2Start(t, it2test.Python)
			out := filepath.Join(t.TempDir(), "out")
			o, cwd := execFileOpen(t, out)
			o.Title = "researcher"
			o.Place = Place{Horizontal: true, Percent: 70}
			h, err := s.t.Open(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			files, _ := os.ReadDir(s.dir)
			if len(files) != 1 {
				t.Fatalf("launch folder holds %v; want one file", files)
			}
			file := filepath.Join(s.dir, files[0].Name())
			gate := "exec " + iterm2.Quote(s.t.exe) + " pane-exec " + iterm2.Quote(file)
			if typed := iterm2Typed(t, s.f, h); len(typed) != 1 || typed[0] != gate+"\r" {
				t.Fatalf("typed into the new session: %q; want only %q", typed, gate+"\r")
			}
			// Nothing of the argv or env reached it2, in any call.
			for _, call := range s.f.Argvs() {
				for _, a := range append(append([]string{}, o.Env...), execFileHostile...) {
					if len(a) > 2 && strings.Contains(call, a) { // ";" is in the launch folder's name
						t.Fatalf("it2 call %q carries the pane's %q", call, a)
					}
				}
			}
			if got := s.f.Session(string(h)).Name; got != "researcher" {
				t.Fatalf("session name %q; want the title", got)
			}
			// What iTerm2 would do with the typed line: the person's shell
			// reads it (the carriage return is the Enter key).
			typed := strings.TrimSuffix(iterm2Typed(t, s.f, h)[0], "\r")
			cmd := exec.Command(sh, append(shell.args, typed)...)
			cmd.Dir = t.TempDir()
			cmd.Env = testutil.Env()
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s ran the gate line %q: %v\n%s", shell.name, typed, err, msg)
			}
			// exec: the program is the shell's process, not its child.
			execFileCheck(t, out, cwd, cmd.Process.Pid)
			if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("launch file left after the pane started: %v", err)
			}
		})
	}
}

// Horizontal (side by side) is it2's -v, a vertical divider; below is a
// split without -v. "" splits the lead's session.
func iterm2TestPlacement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := iterm2Start(t, it2test.Python)
	open := func(p Place) Handle {
		t.Helper()
		h, err := s.t.Open(ctx, Open{Argv: []string{"cat"}, Place: p})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	first := open(Place{Horizontal: true, Percent: 70})
	second := open(Place{Beside: first})
	third := open(Place{Beside: second, Horizontal: true})
	for _, c := range []struct {
		h        Handle
		from     string
		vertical bool
		geometry string
	}{
		{first, s.f.LeadID, true, "beside the lead"},
		{second, string(first), false, "below the first"},
		{third, string(second), true, "beside the second"},
	} {
		got := s.f.Session(string(c.h))
		if got.SplitFrom != c.from || got.Vertical != c.vertical {
			t.Errorf("%s: split from %s vertical=%v; want %s vertical=%v (%s)",
				c.h, got.SplitFrom, got.Vertical, c.from, c.vertical, c.geometry)
		}
	}
	var splits []string
	for _, a := range s.f.Argvs() {
		if strings.HasPrefix(a, "session split") {
			splits = append(splits, a)
		}
	}
	want := []string{
		"session split -v -s " + s.f.LeadID,
		"session split -s " + string(first),
		"session split -v -s " + string(second),
	}
	if !slices.Equal(splits, want) {
		t.Fatalf("splits:\n%s\nwant:\n%s", strings.Join(splits, "\n"), strings.Join(want, "\n"))
	}
	if _, err := s.t.Open(ctx, Open{Argv: []string{"cat"}, Place: Place{Beside: "%3"}}); err == nil ||
		!strings.Contains(err.Error(), "not an iTerm2 session id") {
		t.Fatalf("Open beside a tmux pane id: %v; want a refusal", err)
	}
}

func TestITerm2SplitOptions(t *testing.T) {
	for _, c := range []struct {
		p    Place
		want iterm2.SplitOptions
	}{
		{Place{Horizontal: true}, iterm2.SplitOptions{Target: "T", Vertical: true}},
		{Place{Horizontal: false}, iterm2.SplitOptions{Target: "T"}},
		{Place{Horizontal: true, Percent: 70}, iterm2.SplitOptions{Target: "T", Vertical: true}},
	} {
		if got := iterm2SplitOptions("T", c.p); got != c.want {
			t.Errorf("iterm2SplitOptions(%+v) = %+v; want %+v", c.p, got, c.want)
		}
	}
}

// OwnTab opens a tab in the lead's window and splits nothing.
func iterm2TestOwnTab(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := iterm2Start(t, it2test.Python)
	h, err := s.t.Open(ctx, Open{Argv: []string{"cat"}, Title: "tester", Place: Place{OwnTab: true, Beside: "ignored"}})
	if err != nil {
		t.Fatal(err)
	}
	lead, got := s.f.Session(s.f.LeadID), s.f.Session(string(h))
	if got == nil || got.TabID == lead.TabID || got.WindowID != lead.WindowID || got.SplitFrom != "" {
		t.Fatalf("new session %+v; want a new tab in the lead's window %s (lead's tab %s)", got, lead.WindowID, lead.TabID)
	}
	if got.Name != "tester" || len(got.Typed) != 1 || !strings.HasPrefix(got.Typed[0], "exec ") {
		t.Fatalf("tab session named %q typed %q; want the title and the gate line", got.Name, got.Typed)
	}
	if !slices.Contains(s.f.Argvs(), "tab new -w "+lead.WindowID) {
		t.Fatalf("it2 calls %q; want 'tab new -w %s'", s.f.Argvs(), lead.WindowID)
	}
	for _, a := range s.f.Argvs() {
		if strings.HasPrefix(a, "session split") {
			t.Fatalf("OwnTab split a pane: %q", a)
		}
	}
}

func iterm2TestCloseAndList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := iterm2Start(t, it2test.Python)
	a, err := s.t.Open(ctx, Open{Argv: []string{"cat"}, Place: Place{Horizontal: true}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.t.Open(ctx, Open{Argv: []string{"cat"}, Place: Place{Beside: a}})
	if err != nil {
		t.Fatal(err)
	}
	list := func() []Handle {
		t.Helper()
		l, err := s.t.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if l := list(); !slices.Equal(l, []Handle{Handle(s.f.LeadID), a, b}) {
		t.Fatalf("List = %v; want lead, %s, %s", l, a, b)
	}
	if err := s.t.Close(ctx, a); err != nil {
		t.Fatal(err)
	}
	// The launch file of a pane whose line never ran goes with it.
	if files, _ := os.ReadDir(s.dir); len(files) != 1 {
		t.Fatalf("launch folder after closing one of two unstarted panes: %v; want one file", files)
	}
	if !slices.Contains(s.f.Argvs(), "session close -f -s "+string(a)) {
		t.Fatalf("it2 calls %q; want 'session close -f -s %s'", s.f.Argvs(), a)
	}
	s.f.CloseSession(string(b)) // the person closes the pane by hand
	if l := list(); !slices.Equal(l, []Handle{Handle(s.f.LeadID)}) {
		t.Fatalf("List after both closed = %v; want only the lead", l)
	}
	for _, h := range []Handle{a, b} {
		if err := s.t.Close(ctx, h); err != nil {
			t.Fatalf("Close of a session already gone: %v; want success", err)
		}
	}
	if err := s.t.Close(ctx, Handle(s.f.LeadID)); err == nil || s.f.Session(s.f.LeadID) == nil {
		t.Fatalf("Close(lead) = %v; want a refusal and the lead's session kept", err)
	}
}

// Probe and the constructor say what to turn on or install.
func iterm2TestProbe(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, fl := range []it2test.Flavor{it2test.Python, it2test.Swift} {
		s := iterm2Start(t, fl)
		if err := s.t.Probe(ctx); err != nil {
			t.Fatalf("%s: Probe with the API on: %v", fl, err)
		}
		s.f.Change(func(st *it2test.State) { st.APIOff = true })
		err := s.t.Probe(ctx)
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "Enable Python API") ||
			!strings.Contains(err.Error(), "it2 session list") {
			t.Fatalf("%s: Probe with the API off: %v; want ErrUnavailable naming the call and the Python API setting", fl, err)
		}
		if _, err := s.t.Open(ctx, Open{Argv: []string{"cat"}}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("%s: Open with the API off: %v; want ErrUnavailable", fl, err)
		}
		if files, _ := os.ReadDir(s.dir); len(files) != 0 {
			t.Fatalf("%s: failed Open left %v", fl, files)
		}
	}
	_, err := New("iterm2", Env{
		Getenv:   func(string) string { return "" },
		LookPath: func(n string) (string, error) { return "", &exec.Error{Name: n, Err: exec.ErrNotFound} },
		Exe:      "/x/paneteam", Dir: t.TempDir(),
	})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "pipx install it2") {
		t.Fatalf("New without it2: %v; want ErrUnavailable saying how to install it2", err)
	}
}

// A split of a session closed by hand fails with it2's message, and
// leaves no launch file behind.
func iterm2TestDeadTarget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := iterm2Start(t, it2test.Python)
	a, err := s.t.Open(ctx, Open{Argv: []string{"cat"}, Place: Place{Horizontal: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.t.Close(ctx, a); err != nil {
		t.Fatal(err)
	}
	_, err = s.t.Open(ctx, Open{Argv: []string{"cat"}, Place: Place{Beside: a}})
	if !errors.Is(err, iterm2.ErrSessionNotFound) || !strings.Contains(err.Error(), "session split") {
		t.Fatalf("Open beside a closed session: %v; want it2's 'not found' for the split", err)
	}
	if files, _ := os.ReadDir(s.dir); len(files) != 0 {
		t.Fatalf("failed Open left %v", files)
	}
}
