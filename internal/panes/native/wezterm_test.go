package native

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/sys/proc"
)

func TestWezTermOpenArgs(t *testing.T) {
	argv := []string{"/bin/gate", "x"}
	tests := []struct {
		name string
		o    Open
		want []string
	}{
		{"first teammate right of the lead at 70%", Open{Argv: argv, Place: Place{Horizontal: true, Percent: 70}},
			[]string{"cli", "split-pane", "--pane-id", "3", "--right", "--percent", "70", "--", "/bin/gate", "x"}},
		{"next below the last", Open{Argv: argv, Cwd: "/w d", Place: Place{Beside: "7"}},
			[]string{"cli", "split-pane", "--pane-id", "7", "--bottom", "--cwd", "/w d", "--", "/bin/gate", "x"}},
		{"own tab in the lead's window", Open{Argv: argv, Place: Place{OwnTab: true, Beside: "7", Horizontal: true, Percent: 30}},
			[]string{"cli", "spawn", "--pane-id", "3", "--", "/bin/gate", "x"}},
		{"env through env(1)", Open{Argv: argv, Env: []string{"A=1", "B=x y=z"}, Place: Place{}},
			[]string{"cli", "split-pane", "--pane-id", "3", "--bottom", "--", "/usr/bin/env", "--", "A=1", "B=x y=z", "/bin/gate", "x"}},
	}
	for _, tt := range tests {
		got, err := weztermOpenArgs(tt.o, "3", "/usr/bin/env")
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %q, %v\nwant %q", tt.name, got, err, tt.want)
		}
	}
	bad := []struct {
		name string
		o    Open
		lead string
	}{
		{"no program", Open{}, "3"},
		{"program name with =", Open{Argv: []string{"A=B"}, Env: []string{"X=1"}}, "3"},
		{"env entry without =", Open{Argv: argv, Env: []string{"NOEQ"}}, "3"},
		{"env entry without key", Open{Argv: argv, Env: []string{"=v"}}, "3"},
		{"beside not a pane id", Open{Argv: argv, Place: Place{Beside: "--top-level"}}, "3"},
		{"lead unknown", Open{Argv: argv}, ""},
		{"percent 100", Open{Argv: argv, Place: Place{Percent: 100}}, "3"},
	}
	for _, tt := range bad {
		if got, err := weztermOpenArgs(tt.o, tt.lead, "/usr/bin/env"); err == nil {
			t.Errorf("%s: no error, args %q", tt.name, got)
		}
	}
}

// weztermRecorder is a program for a pane: it writes its arguments (one a
// line), its working folder and $FOO to out, then waits for a line of
// input and exits. No word of the arguments is parsed by the shell.
func weztermRecorder(out string, args ...string) []string {
	script := `out=$1; shift; { printf '%s\n' "$@"; pwd; printf 'FOO=%s\n' "$FOO"; } >"$out.tmp" && mv "$out.tmp" "$out"; read line`
	return append([]string{"/bin/sh", "-c", script, "sh", out}, args...)
}

// weztermWaitFile waits for a file to appear and returns its lines.
func weztermWaitFile(t *testing.T, path string) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil {
			return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// weztermStart starts a fake WezTerm whose first pane (the lead) waits,
// and the driver as that pane sees it.
func weztermStart(t *testing.T) (*nativetest.Terminal, Terminal) {
	t.Helper()
	tm := nativetest.Start(t, nativetest.WezTerm, []string{"/bin/sh", "-c", "echo lead ready; exec sleep 600"}, nativetest.Options{})
	d, err := New("wezterm", Env{Getenv: tm.Getenv(tm.First), LookPath: weztermLookPath(tm), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return tm, d
}

func weztermLookPath(tm *nativetest.Terminal) func(string) (string, error) {
	return func(name string) (string, error) {
		if name == tm.Kind {
			return tm.Bin, nil
		}
		return exec.LookPath(name)
	}
}

// openFakePane opens a pane running sleep through d, placed as p and
// titled title, and returns it as the fake terminal tm recorded it.
func openFakePane(t *testing.T, tm *nativetest.Terminal, d Terminal, p Place, title string) nativetest.Pane {
	t.Helper()
	h, err := d.Open(weztermCtx(t), Open{Argv: []string{"sleep", "600"}, Title: title, Place: p})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := strconv.Atoi(string(h))
	pane, err := tm.Pane(id)
	if err != nil {
		t.Fatal(err)
	}
	return pane
}

func weztermCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// weztermCheckVerbatim opens a pane with hostile arguments and checks
// they, the environment and the working folder reach the program as
// given, with nothing run by a shell.
func weztermCheckVerbatim(t *testing.T, d Terminal, place Place) Handle {
	t.Helper()
	dir := t.TempDir()
	cwd := filepath.Join(dir, "work dir")
	os.Mkdir(cwd, 0o700)
	marker := filepath.Join(dir, "X")
	args := []string{"$(touch " + marker + ")", "a; touch " + marker, "K=V with spaces", "`touch " + marker + "`", `quote" back\slash`, "--pane-id"}
	out := filepath.Join(dir, "out")
	h, err := d.Open(weztermCtx(t), Open{Argv: weztermRecorder(out, args...), Env: []string{"FOO=a b=c $(touch " + marker + ")"}, Cwd: cwd, Title: "alice", Place: place})
	if err != nil {
		t.Fatal(err)
	}
	got := weztermWaitFile(t, out)
	want := append(append([]string{}, args...), cwd, "FOO=a b=c $(touch "+marker+")")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("program saw\n%q\nwant\n%q", got, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("an argument was run by a shell: %s exists", marker)
	}
	return h
}

func TestWezTermOpenRunsArgvVerbatim(t *testing.T) {
	tm, d := weztermStart(t)
	for _, place := range []Place{{Horizontal: true, Percent: 70}, {OwnTab: true}} {
		h := weztermCheckVerbatim(t, d, place)
		id, _ := strconv.Atoi(string(h))
		if _, err := tm.Pane(id); err != nil {
			t.Errorf("pane %s not in the terminal: %v", h, err)
		}
	}
}

func TestWezTermPlacementFollowsLayout(t *testing.T) {
	tm, d := weztermStart(t)
	open := func(p Place, title string) nativetest.Pane { return openFakePane(t, tm, d, p, title) }
	lead, _ := tm.Pane(tm.First)
	a := open(Place{Horizontal: true, Percent: 70}, "alice")
	if a.SplitFrom != tm.First || a.Direction != "right" || a.Percent != 70 || a.TabID != lead.TabID {
		t.Errorf("first teammate: split from %d %s %d%% in tab %d; want right of the lead (%d) at 70%% in tab %d", a.SplitFrom, a.Direction, a.Percent, a.TabID, tm.First, lead.TabID)
	}
	b := open(Place{Beside: Handle(strconv.Itoa(a.ID))}, "bob")
	if b.SplitFrom != a.ID || b.Direction != "bottom" {
		t.Errorf("second teammate: split from %d %s; want below %d", b.SplitFrom, b.Direction, a.ID)
	}
	c := open(Place{OwnTab: true}, "carol")
	if c.SplitFrom != -1 || c.TabID == lead.TabID || c.WindowID != lead.WindowID || c.TabName != "carol" {
		t.Errorf("own tab: %+v; want a new tab named carol in the lead's window %d", c, lead.WindowID)
	}
	if l, _ := tm.Pane(tm.First); l.Cols >= lead.Cols || l.TabName != "" {
		t.Errorf("lead pane: %d cols (was %d), tab title %q: the lead's tab should be split and keep its title", l.Cols, lead.Cols, l.TabName)
	}
}

func TestWezTermCloseEndsProgramAndPane(t *testing.T) {
	tm, d := weztermStart(t)
	ctx := weztermCtx(t)
	h, err := d.Open(ctx, Open{Argv: []string{"sleep", "600"}, Place: Place{Horizontal: true}})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := strconv.Atoi(string(h))
	p, _ := tm.Pane(id)
	start, _ := proc.StartTime(p.PID)
	if err := d.Close(ctx, h); err != nil {
		t.Fatal(err)
	}
	if err := tm.WaitGone(ctx, id); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); proc.Alive(p.PID, start); {
		if time.Now().After(deadline) {
			t.Fatalf("program %d still runs after Close", p.PID)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := d.Close(ctx, h); err != nil {
		t.Errorf("Close of a gone pane: %v", err)
	}
	if _, err := tm.Pane(tm.First); err != nil {
		t.Errorf("the lead's pane went too: %v", err)
	}
}

func TestWezTermListDropsExitedPane(t *testing.T) {
	tm, d := weztermStart(t)
	ctx := weztermCtx(t)
	out := filepath.Join(t.TempDir(), "out")
	h, err := d.Open(ctx, Open{Argv: weztermRecorder(out), Place: Place{Horizontal: true}})
	if err != nil {
		t.Fatal(err)
	}
	weztermWaitFile(t, out)
	if hs, err := d.List(ctx); err != nil || !slices.Contains(hs, h) || !slices.Contains(hs, Handle(strconv.Itoa(tm.First))) {
		t.Fatalf("List = %v, %v; want the lead and %s", hs, err, h)
	}
	id, _ := strconv.Atoi(string(h))
	if err := tm.Type(id, "done\r"); err != nil {
		t.Fatal(err)
	}
	if err := tm.WaitGone(ctx, id); err != nil {
		t.Fatal(err)
	}
	if hs, err := d.List(ctx); err != nil || slices.Contains(hs, h) {
		t.Errorf("List = %v, %v; pane %s's program exited", hs, err, h)
	}
}

func TestWezTermUnavailableOutside(t *testing.T) {
	none := func(string) string { return "" }
	_, err := New("wezterm", Env{Getenv: none, LookPath: func(string) (string, error) { return "", exec.ErrNotFound }})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "install WezTerm") {
		t.Errorf("without wezterm: %v", err)
	}
	tm := nativetest.Start(t, nativetest.WezTerm, []string{"sleep", "600"}, nativetest.Options{})
	_, err = New("wezterm", Env{Getenv: none, LookPath: weztermLookPath(tm)})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "WEZTERM_PANE") {
		t.Errorf("outside WezTerm: %v", err)
	}
	getenv := func(k string) string {
		if k == "WEZTERM_PANE" {
			return "0"
		}
		if k == "WEZTERM_UNIX_SOCKET" {
			return filepath.Join(t.TempDir(), "gone")
		}
		return ""
	}
	d, err := New("wezterm", Env{Getenv: getenv, LookPath: weztermLookPath(tm)})
	if err != nil {
		t.Fatal(err)
	}
	err = d.Probe(weztermCtx(t))
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "WEZTERM_UNIX_SOCKET") {
		t.Errorf("Probe with a dead socket: %v", err)
	}
	d, _ = New("wezterm", Env{Getenv: tm.Getenv(tm.First), LookPath: weztermLookPath(tm)})
	if err := d.Probe(weztermCtx(t)); err != nil {
		t.Errorf("Probe inside: %v", err)
	}
}

// The fake refuses what the real CLI refuses, so a driver bug shows.
func TestWezTermFakeRejectsUnknownFlags(t *testing.T) {
	tm := nativetest.Start(t, nativetest.WezTerm, []string{"sleep", "600"}, nativetest.Options{})
	for _, args := range [][]string{
		{"cli", "split-pane", "--pane-id", "0", "--env", "A=B", "--", "true"},
		{"cli", "split-pane", "--pane-id", "0", "--direction", "right", "--", "true"},
		{"cli", "split-pane", "--pane-id", "0", "--right", "--bottom", "--", "true"},
		{"cli", "spawn", "--pane-id", "0", "--percent", "50", "--", "true"},
		{"cli", "list", "--format", "yaml"},
		{"cli", "kill-pane", "--pane-id", "0", "--force"},
		{"cli", "set-pane-title", "x"},
	} {
		cmd := exec.Command(tm.Bin, args...)
		cmd.Env = tm.Env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.HasPrefix(string(out), "error: ") {
			t.Errorf("wezterm %q: %v %q; want exit 2 with a usage error", args, err, out)
		}
	}
	if ps, _ := tm.Panes(); len(ps) != 1 {
		t.Errorf("a refused call changed the panes: %+v", ps)
	}
}

// The driver reaches the WezTerm its address names or none: not the one
// the calling process's own WEZTERM_UNIX_SOCKET names, and, for a mux
// socket that does not answer, not a mux server the CLI would start
// (wezterm cli --no-auto-start).
func TestWezTermReachesOnlyItsAddress(t *testing.T) {
	other := nativetest.Start(t, nativetest.WezTerm, []string{"sleep", "600"}, nativetest.Options{})
	runtime := filepath.Join(t.TempDir(), "wezterm")
	t.Setenv("WEZTERM_FAKE_RUNTIME_DIR", runtime)
	t.Setenv("WEZTERM_UNIX_SOCKET", filepath.Join(other.Dir, "sock"))
	for name, sock := range map[string]string{"no socket": "", "a dead socket": filepath.Join(t.TempDir(), "gone")} {
		getenv := func(k string) string {
			return map[string]string{"WEZTERM_PANE": "0", "WEZTERM_UNIX_SOCKET": sock}[k]
		}
		d, err := New("wezterm", Env{Getenv: getenv, LookPath: weztermLookPath(other)})
		if sock == "" {
			if err == nil || !strings.Contains(err.Error(), "WEZTERM_UNIX_SOCKET") {
				t.Errorf("with no socket in the address: %v; want a refusal naming WEZTERM_UNIX_SOCKET", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if hs, err := d.List(weztermCtx(t)); err == nil {
			t.Errorf("with %s in the address, List answered %v; want an error, not the caller's WezTerm or a new mux", name, hs)
		}
		if _, err := os.Stat(runtime); err == nil {
			t.Errorf("with %s in the address, the CLI started a mux server in %s", name, runtime)
		}
	}
}
