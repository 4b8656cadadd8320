package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/kittytest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestKittyLaunchArgs(t *testing.T) {
	argv := []string{"/bin/prog", "$(touch X)", "a;b"}
	tests := []struct {
		name           string
		o              Open
		target, nextTo Handle
		bias           bool
		want           []string
	}{
		{"beside the lead, old kitty", Open{Argv: argv, Place: Place{Horizontal: true, Percent: 70}}, "1", "", false,
			[]string{"launch", "--type=window", "--location=vsplit", "--match=window_id:1", "--keep-focus", "--", "/bin/prog", "$(touch X)", "a;b"}},
		{"below a teammate, kitty 0.40", Open{Argv: argv, Cwd: "/w d", Env: []string{"A=1", "B="}, Title: "bob",
			Place: Place{Beside: "7", Percent: 50}}, "7", "7", true,
			[]string{"launch", "--type=window", "--location=hsplit", "--next-to=id:7", "--bias=50", "--match=window_id:7", "--keep-focus",
				"--cwd=/w d", "--env=A=1", "--env=B=", "--title=bob", "--", "/bin/prog", "$(touch X)", "a;b"}},
		{"half, no bias given", Open{Argv: argv, Place: Place{Horizontal: true}}, "3", "3", true,
			[]string{"launch", "--type=window", "--location=vsplit", "--next-to=id:3", "--match=window_id:3", "--keep-focus", "--", "/bin/prog", "$(touch X)", "a;b"}},
		{"own tab", Open{Argv: argv, Title: "bob", Place: Place{OwnTab: true, Horizontal: true, Percent: 70}}, "1", "", true,
			[]string{"launch", "--type=tab", "--match=window_id:1", "--keep-focus", "--title=bob", "--tab-title=bob", "--", "/bin/prog", "$(touch X)", "a;b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := kittyLaunchArgs(tc.o, tc.target, tc.nextTo, tc.bias)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestKittyParseVersion(t *testing.T) {
	for in, want := range map[string][3]int{
		"kitty 0.26.5 created by Kovid Goyal\n":             {0, 26, 5},
		"kitty 0.40.1 (a1b2c3d) created by Kovid Goyal\n":   {0, 40, 1},
		"kitty 0.44.0 created by Kovid Goyal":               {0, 44, 0},
		"kitty 1.2 created by Kovid Goyal":                  {1, 2, 0},
		"kitty 0.45.0+git20251224.0fd3a1812 created by K G": {0, 45, 0},
	} {
		got, err := kittyParseVersion(in)
		if err != nil || got != want {
			t.Errorf("kittyParseVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := kittyParseVersion("bash: kitty: not found"); err == nil {
		t.Error("a line that is not kitty's version parsed")
	}
	if !versionAtLeast([3]int{0, 40, 0}, kittyNextToSince) || versionAtLeast([3]int{0, 39, 9}, kittyNextToSince) {
		t.Error("versionAtLeast compares wrongly")
	}
}

func TestKittyRefusesWhatWouldNotReachTheProgram(t *testing.T) {
	k := &kitty{bin: "kitty", addr: "unix:/nonexistent", lead: "1"}
	k.run = func(ctx context.Context, args ...string) (string, error) {
		t.Fatalf("kitty was called: %q", args)
		return "", nil
	}
	for _, o := range []Open{
		{},
		{Argv: []string{"prog", "@selection"}},
		{Argv: []string{"prog"}, Env: []string{"NOEQUALS"}},
		{Argv: []string{"prog"}, Place: Place{Beside: "1 or title:x"}},
	} {
		if _, err := k.Open(context.Background(), o); err == nil {
			t.Errorf("Open(%+v) succeeded", o)
		}
	}
	if err := k.Close(context.Background(), "id:1"); err == nil {
		t.Error("Close of a handle that is no window id succeeded")
	}
}

func TestKittyNeedsListenOn(t *testing.T) {
	_, err := New("kitty", Env{
		Getenv:   func(string) string { return "" },
		LookPath: func(string) (string, error) { return "/usr/bin/kitty", nil },
	})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "allow_remote_control yes") ||
		!strings.Contains(err.Error(), "listen_on unix:/tmp/kitty") {
		t.Fatalf("err = %v; want ErrUnavailable telling how to turn remote control on", err)
	}
	_, err = New("kitty", Env{
		Getenv:   func(string) string { return "unix:/tmp/k" },
		LookPath: func(string) (string, error) { return "", exec.ErrNotFound },
	})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "install kitty") {
		t.Fatalf("err = %v; want ErrUnavailable telling to install kitty", err)
	}
}

// kittyDriver is the driver as a program in k's first window makes it.
func kittyDriver(t *testing.T, k *kittytest.Kitty) Terminal {
	t.Helper()
	term, err := New("kitty", Env{Getenv: k.Getenv, LookPath: exec.LookPath})
	if err != nil {
		t.Fatal(err)
	}
	return term
}

func kittyCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestKittyProbe(t *testing.T) {
	ctx := kittyCtx(t)
	k := kittytest.Start(t, kittytest.Options{})
	if err := kittyDriver(t, k).Probe(ctx); err != nil {
		t.Fatalf("Probe with remote control on: %v", err)
	}

	wrong, err := New("kitty", Env{LookPath: exec.LookPath, Getenv: func(key string) string {
		if key == "KITTY_LISTEN_ON" {
			return "unix:" + filepath.Join(k.Dir, "nothing.sock")
		}
		return k.Getenv(key)
	}})
	if err != nil {
		t.Fatal(err)
	}
	kittyWantUnavailable(t, "a wrong socket", wrong.Probe(ctx))

	off := kittytest.Start(t, kittytest.Options{NoRemoteControl: true})
	kittyWantUnavailable(t, "remote control off", kittyDriver(t, off).Probe(ctx))
}

func kittyWantUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Probe with %s: err = %v; want ErrUnavailable", what, err)
	}
	for _, s := range []string{"allow_remote_control yes", "listen_on unix:/tmp/kitty", "-o allow_remote_control=yes --listen-on unix:/tmp/kitty", "restart kitty"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("Probe with %s: %v\ndoes not say %q", what, err, s)
		}
	}
}

// kittyRecorder is a program (a fixed sh script; what it is given stays
// in "$@") that writes its arguments, environment, folder, pid and
// terminal size into dir/<name>.*, then waits.
func kittyRecorder(dir, name string, args ...string) []string {
	p := filepath.Join(dir, name)
	script := `p=$1; shift; printf '%s\n' "$@" > "$p.args"; env > "$p.env"; pwd > "$p.cwd"; echo $$ > "$p.pid.tmp"; mv "$p.pid.tmp" "$p.pid"; exec sleep 600`
	return append([]string{"/bin/sh", "-c", script, "recorder", p}, args...)
}

func kittyRead(t *testing.T, path string) string {
	t.Helper()
	var b []byte
	testutil.Eventually(t, 10*time.Second, "the pane's program wrote "+path, func() error {
		var err error
		b, err = os.ReadFile(path)
		return err
	})
	return string(b)
}

func kittyAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestKittyOpensPlacesAndClosesWindows(t *testing.T) {
	ctx := kittyCtx(t)
	k := kittytest.Start(t, kittytest.Options{})
	term := kittyDriver(t, k)
	dir := t.TempDir()
	cwd := t.TempDir()

	// The first teammate: beside the lead at 70%, with its env and cwd,
	// and arguments a shell would have run.
	bob, err := term.Open(ctx, Open{
		Argv:  kittyRecorder(dir, "bob", "$(touch "+filepath.Join(dir, "X")+")", "a; touch "+filepath.Join(dir, "Y"), "two words"),
		Env:   []string{"PANETEAM_AGENT=bob", "SPACED=a b"},
		Cwd:   cwd,
		Title: "bob@team",
		Place: Place{Horizontal: true, Percent: 70},
	})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	args := kittyRead(t, filepath.Join(dir, "bob.pid")) // written last
	args = kittyRead(t, filepath.Join(dir, "bob.args"))
	want := "$(touch " + filepath.Join(dir, "X") + ")\na; touch " + filepath.Join(dir, "Y") + "\ntwo words\n"
	if args != want {
		t.Errorf("the program got arguments\n%q\nwant\n%q", args, want)
	}
	for _, f := range []string{"X", "Y"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s exists: an argument reached a shell", f)
		}
	}
	env := kittyRead(t, filepath.Join(dir, "bob.env"))
	for _, kv := range []string{"PANETEAM_AGENT=bob", "SPACED=a b"} {
		if !strings.Contains(env, "\n"+kv+"\n") {
			t.Errorf("the program's environment lacks %s", kv)
		}
	}
	if got := strings.TrimSpace(kittyRead(t, filepath.Join(dir, "bob.cwd"))); got != cwd {
		t.Errorf("the program runs in %s, want %s", got, cwd)
	}

	// The second teammate: below the first, half of it.
	carol, err := term.Open(ctx, Open{Argv: kittyRecorder(dir, "carol"), Title: "carol", Place: Place{Beside: bob}})
	if err != nil {
		t.Fatalf("Open below bob: %v", err)
	}
	kittyRead(t, filepath.Join(dir, "carol.pid"))

	ls := k.List(t)
	lead, leadTab, _ := ls.Find(k.Window)
	b, bTab, ok1 := ls.Find(string(bob))
	c, cTab, ok2 := ls.Find(string(carol))
	if !ok1 || !ok2 || bTab != leadTab || cTab != leadTab {
		t.Fatalf("teammates not in the lead's tab: ls = %+v", ls)
	}
	total := lead.Columns + b.Columns
	if share := float64(lead.Columns) / float64(total); share < 0.25 || share > 0.35 {
		t.Errorf("the lead has %d of %d columns (%.0f%%), want about 30%%", lead.Columns, total, share*100)
	}
	if c.Columns != b.Columns || c.Lines+b.Lines > lead.Lines || c.Lines < lead.Lines/2-2 || b.Lines < lead.Lines/2-2 {
		t.Errorf("carol is not below bob, sharing bob's column: lead %dx%d, bob %dx%d, carol %dx%d",
			lead.Columns, lead.Lines, b.Columns, b.Lines, c.Columns, c.Lines)
	}
	if !lead.Focused {
		t.Errorf("the lead lost the focus: ls = %+v", ls)
	}
	if b.Title != "bob@team" {
		t.Errorf("bob's window is titled %q", b.Title)
	}

	// A teammate in its own tab leaves the lead's tab alone.
	dave, err := term.Open(ctx, Open{Argv: kittyRecorder(dir, "dave"), Title: "dave", Place: Place{OwnTab: true}})
	if err != nil {
		t.Fatalf("Open in its own tab: %v", err)
	}
	kittyRead(t, filepath.Join(dir, "dave.pid"))
	ls2 := k.List(t)
	_, dTab, ok := ls2.Find(string(dave))
	lead2, _, _ := ls2.Find(k.Window)
	if !ok || dTab == leadTab {
		t.Errorf("dave is not in a tab of its own: %+v", ls2)
	}
	if kittyWindowsOf(ls2, leadTab) != kittyWindowsOf(ls, leadTab) || lead2.Columns != lead.Columns || !lead2.Focused {
		t.Errorf("the lead's tab changed: before %v, after %v", kittyWindowsOf(ls, leadTab), kittyWindowsOf(ls2, leadTab))
	}

	// List has them all; Close ends a window and its program.
	kittyWantList(t, term, Handle(k.Window), bob, carol, dave)
	carolPID, _ := strconv.Atoi(strings.TrimSpace(kittyRead(t, filepath.Join(dir, "carol.pid"))))
	if err := term.Close(ctx, carol); err != nil {
		t.Fatalf("Close: %v", err)
	}
	testutil.Eventually(t, 10*time.Second, "carol's program ends", func() bool { return !kittyAlive(carolPID) })
	kittyWantList(t, term, Handle(k.Window), bob, dave)
	if err := term.Close(ctx, carol); err != nil {
		t.Errorf("Close of a window already gone: %v", err)
	}

	// A window whose program exits leaves the list.
	quick, err := term.Open(ctx, Open{Argv: []string{"sleep", "0.3"}, Place: Place{Beside: bob, Horizontal: true}})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	testutil.Eventually(t, 10*time.Second, "the window of a program that exited leaves List", func() error {
		hs, err := term.List(ctx)
		if err != nil {
			return err
		}
		for _, h := range hs {
			if h == quick {
				return fmt.Errorf("List still has %s: %v", quick, hs)
			}
		}
		return nil
	})

	// A tab whose enabled layouts leave out splits gets a clear error.
	k.Must(t, "set-enabled-layouts", "--match=window_id:"+string(dave), "tall,stack")
	_, err = term.Open(ctx, Open{Argv: []string{"sleep", "60"}, Place: Place{Beside: dave, Horizontal: true}})
	if err == nil || !strings.Contains(err.Error(), "enabled_layouts") {
		t.Errorf("Open beside a window in a tab without splits: err = %v; want one naming enabled_layouts", err)
	}
}

func kittyWindowsOf(ls kittytest.LS, tab int) string {
	var ids []string
	for _, o := range ls {
		for _, tb := range o.Tabs {
			if tb.ID == tab {
				for _, w := range tb.Windows {
					ids = append(ids, strconv.Itoa(w.ID))
				}
			}
		}
	}
	return strings.Join(ids, ",")
}

func kittyWantList(t *testing.T, term Terminal, want ...Handle) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, "List has exactly the open windows", func() error {
		got, err := term.List(context.Background())
		if err != nil {
			return err
		}
		g, w := fmt.Sprint(kittySorted(got)), fmt.Sprint(kittySorted(want))
		if g != w {
			return fmt.Errorf("List = %s, want %s", g, w)
		}
		return nil
	})
}

func kittySorted(hs []Handle) []Handle {
	out := append([]Handle(nil), hs...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// TestKittyCallCost measures one `kitty @ launch` and one `kitty @ ls` on
// this machine (median of 20); run with PANETEAM_BENCH=1.
func TestKittyCallCost(t *testing.T) {
	if os.Getenv("PANETEAM_BENCH") != "1" {
		t.Skip("SKIPPED: a timing run; set PANETEAM_BENCH=1 to measure kitty's call costs")
	}
	ctx := kittyCtx(t)
	k := kittytest.Start(t, kittytest.Options{})
	kt := kittyDriver(t, k).(*kitty)
	median := func(what string, f func()) {
		var d []time.Duration
		for i := 0; i < 20; i++ {
			start := time.Now()
			f()
			d = append(d, time.Since(start))
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		t.Logf("%s: median %v (min %v, max %v)", what, d[10], d[0], d[19])
	}
	median("kitty @ ls", func() {
		if _, err := kt.rc(ctx, "ls"); err != nil {
			t.Fatal(err)
		}
	})
	median("kitty @ launch --type=tab", func() {
		if _, err := kt.rc(ctx, "launch", "--type=tab", "--keep-focus", "--", "sleep", "60"); err != nil {
			t.Fatal(err)
		}
	})
	median("kitty --version", func() {
		if _, err := kt.run(ctx, "--version"); err != nil {
			t.Fatal(err)
		}
	})
}

// Close takes kitty's "No matching windows" on stderr for a window
// already gone, and reports any other failure with the call and what
// kitty said.
func TestKittyCloseOfAGoneWindow(t *testing.T) {
	dir := t.TempDir()
	fake := func(stderr string) *kitty {
		bin := filepath.Join(dir, "kitty-"+strconv.Itoa(len(stderr)))
		script := "#!/bin/sh\necho '" + stderr + "' >&2\nexit 1\n"
		if err := os.WriteFile(bin, []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
		k := &kitty{bin: bin, addr: "unix:/nowhere", lead: "1"}
		k.run = k.exec
		return k
	}
	ctx := context.Background()
	if err := fake("Error: No matching windows for expression: id:7").Close(ctx, "7"); err != nil {
		t.Errorf("Close of a window kitty no longer has: %v, want success", err)
	}
	err := fake("Error: remote control is disabled").Close(ctx, "7")
	want := "kitty @ --to unix:/nowhere close-window --ignore-no-match --match=id:7: exit status 1: Error: remote control is disabled"
	if err == nil || err.Error() != want {
		t.Errorf("Close when kitty refuses:\n got %v\nwant %s", err, want)
	}
}
