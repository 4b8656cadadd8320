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
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/sys/proc"
)

func TestZellijPaneArgs(t *testing.T) {
	launch := []string{"/bin/sh", "-c", "L", "sh", "/d/f", "/bin/gate"}
	tests := []struct {
		name string
		o    Open
		want []string
	}{
		{"right, named, in a folder", Open{Cwd: "/w d", Title: "alice", Place: Place{Horizontal: true, Percent: 70}},
			[]string{"action", "new-pane", "--direction", "right", "--cwd", "/w d", "--name", "alice", "--close-on-exit", "--", "/bin/sh", "-c", "L", "sh", "/d/f", "/bin/gate"}},
		{"below", Open{Place: Place{Beside: "4"}},
			[]string{"action", "new-pane", "--direction", "down", "--close-on-exit", "--", "/bin/sh", "-c", "L", "sh", "/d/f", "/bin/gate"}},
	}
	for _, tt := range tests {
		if got := zellijPaneArgs(tt.o, launch); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	if got, want := zellijTabArgs("/d/l.kdl", "bob"), []string{"action", "new-tab", "--layout", "/d/l.kdl", "--name", "bob"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tab args %q, want %q", got, want)
	}
}

func TestZellijKDLQuote(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:           `"plain"`,
		`a "q" b`:         `"a \"q\" b"`,
		`back\slash`:      `"back\\slash"`,
		"line\nnext\ttab": `"line\nnext\ttab"`,
		"bell\a":          `"bell\u{7}"`,
		"$(x) ; y=z":      `"$(x) ; y=z"`,
	} {
		if got := kdlQuote(in); got != want {
			t.Errorf("kdlQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// zellijStart starts a fake Zellij session whose first pane (the lead)
// waits, and the driver as that pane sees it.
func zellijStart(t *testing.T) (*nativetest.Terminal, Terminal) {
	t.Helper()
	tm := nativetest.Start(t, nativetest.Zellij, []string{"/bin/sh", "-c", "echo lead ready; exec sleep 600"}, nativetest.Options{Session: "team-one"})
	d, err := New("zellij", Env{Getenv: tm.Getenv(tm.First), LookPath: weztermLookPath(tm), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return tm, d
}

func TestZellijOpenRunsArgvVerbatim(t *testing.T) {
	tm, d := zellijStart(t)
	for _, place := range []Place{{Horizontal: true, Percent: 70}, {OwnTab: true}} {
		h := weztermCheckVerbatim(t, d, place)
		id, err := strconv.Atoi(string(h))
		if err != nil {
			t.Fatalf("handle %q is not Zellij's pane id", h)
		}
		p, err := tm.Pane(id)
		if err != nil {
			t.Fatalf("pane %s not in the session: %v", h, err)
		}
		if !p.CloseOnExit || p.Title != "alice" {
			t.Errorf("pane %s: close on exit %v, name %q; want true, alice", h, p.CloseOnExit, p.Title)
		}
	}
}

func TestZellijPlacementFollowsLayout(t *testing.T) {
	tm, d := zellijStart(t)
	open := func(p Place, title string) nativetest.Pane { return openFakePane(t, tm, d, p, title) }
	lead, _ := tm.Pane(tm.First)
	a := open(Place{Horizontal: true, Percent: 70}, "alice")
	if a.SplitFrom != tm.First || a.Direction != "right" || a.TabID != lead.TabID {
		t.Errorf("first teammate: split from %d %s in tab %d; want right of the lead (%d) in tab %d", a.SplitFrom, a.Direction, a.TabID, tm.First, lead.TabID)
	}
	b := open(Place{Beside: Handle(strconv.Itoa(a.ID))}, "bob")
	if b.SplitFrom != a.ID || b.Direction != "down" {
		t.Errorf("second teammate: split from %d %s; want below %d", b.SplitFrom, b.Direction, a.ID)
	}
	c := open(Place{OwnTab: true}, "carol")
	if c.SplitFrom != -1 || c.TabID == lead.TabID || c.TabName != "carol" || c.Title != "carol" {
		t.Errorf("own tab: %+v; want a new tab named carol", c)
	}
	for _, id := range []int{tm.First, a.ID, b.ID} {
		if p, _ := tm.Pane(id); p.TabID != lead.TabID {
			t.Errorf("pane %d left the lead's tab", id)
		}
	}
}

func TestZellijCloseEndsProgramAndPane(t *testing.T) {
	tm, d := zellijStart(t)
	ctx := weztermCtx(t)
	// A program that ignores the hang-up: Close must still end it.
	h, err := d.Open(ctx, Open{Argv: []string{"/bin/sh", "-c", "trap '' HUP; while :; do sleep 0.05; done"}, Place: Place{Horizontal: true}})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := strconv.Atoi(string(h))
	p, _ := tm.Pane(id)
	start, _ := proc.StartTime(p.PID)
	if err := d.Close(ctx, h); err != nil {
		t.Fatal(err)
	}
	if proc.Alive(p.PID, start) {
		t.Errorf("program %d still runs after Close", p.PID)
	}
	if err := tm.WaitGone(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(ctx, h); err != nil {
		t.Errorf("Close of a gone pane: %v", err)
	}
	if err := d.Close(ctx, "12345"); err != nil {
		t.Errorf("Close of a pane never opened: %v", err)
	}
	if _, err := tm.Pane(tm.First); err != nil {
		t.Errorf("the lead's pane went too: %v", err)
	}
	calls, _ := tm.Calls()
	for _, c := range calls {
		if slices.Contains(c, "close-pane") {
			t.Errorf("the driver called close-pane, which closes the focused pane: %q", c)
		}
	}
}

func TestZellijListDropsExitedPane(t *testing.T) {
	tm, d := zellijStart(t)
	ctx := weztermCtx(t)
	out := filepath.Join(t.TempDir(), "out")
	h, err := d.Open(ctx, Open{Argv: weztermRecorder(out), Place: Place{Horizontal: true}})
	if err != nil {
		t.Fatal(err)
	}
	weztermWaitFile(t, out)
	if hs, err := d.List(ctx); err != nil || !slices.Contains(hs, h) {
		t.Fatalf("List = %v, %v; want %s", hs, err, h)
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

func TestZellijUnavailableOutside(t *testing.T) {
	none := func(string) string { return "" }
	_, err := New("zellij", Env{Getenv: none, LookPath: func(string) (string, error) { return "", exec.ErrNotFound }, Dir: t.TempDir()})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "install Zellij") {
		t.Errorf("without zellij: %v", err)
	}
	tm := nativetest.Start(t, nativetest.Zellij, []string{"sleep", "600"}, nativetest.Options{})
	_, err = New("zellij", Env{Getenv: none, LookPath: weztermLookPath(tm), Dir: t.TempDir()})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "ZELLIJ_SESSION_NAME") {
		t.Errorf("outside Zellij: %v", err)
	}
	lead := tm.Getenv(tm.First)
	other := func(k string) string {
		if k == "ZELLIJ_SESSION_NAME" {
			return "no-such-session"
		}
		return lead(k)
	}
	d, err := New("zellij", Env{Getenv: other, LookPath: weztermLookPath(tm), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Probe(weztermCtx(t)); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no-such-session") {
		t.Errorf("Probe of a session that does not run: %v", err)
	}
	d, _ = New("zellij", Env{Getenv: lead, LookPath: weztermLookPath(tm), Dir: t.TempDir()})
	if err := d.Probe(weztermCtx(t)); err != nil {
		t.Errorf("Probe inside: %v", err)
	}
}

// The fake refuses what the real CLI refuses, so a driver bug shows.
func TestZellijFakeRejectsUnknownFlags(t *testing.T) {
	tm := nativetest.Start(t, nativetest.Zellij, []string{"sleep", "600"}, nativetest.Options{Session: "s1"})
	for _, args := range [][]string{
		{"action", "new-pane", "--percent", "70", "--", "true"},
		{"action", "new-pane", "--direction", "sideways", "--", "true"},
		{"action", "new-pane", "--env", "A=B", "--", "true"},
		{"action", "close-pane", "--pane-id", "0"},
		{"action", "new-tab", "--command", "true"},
		{"action", "split-pane"},
	} {
		cmd := exec.Command(tm.Bin, append([]string{"--session", "s1"}, args...)...)
		cmd.Env = tm.Env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.HasPrefix(string(out), "error: ") {
			t.Errorf("zellij %q: %v %q; want exit 2 with a usage error", args, err, out)
		}
	}
	if ps, _ := tm.Panes(); len(ps) != 1 {
		t.Errorf("a refused call changed the panes: %+v", ps)
	}
}

// A command pane opened without --close-on-exit stays, held, after its
// program ends: the fake keeps Zellij's behaviour the driver relies on.
func TestZellijFakeHoldsPaneWithoutCloseOnExit(t *testing.T) {
	tm := nativetest.Start(t, nativetest.Zellij, []string{"sleep", "600"}, nativetest.Options{Session: "s2"})
	cmd := exec.Command(tm.Bin, "--session", "s2", "action", "new-pane", "--", "/bin/sh", "-c", "echo bye")
	cmd.Env = tm.Env
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	id, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(string(out)), "terminal_"))
	if err != nil {
		t.Fatalf("new-pane printed %q, not terminal_N", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := tm.WaitScreen(ctx, id, "bye"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if p, err := tm.Pane(id); err != nil {
			t.Fatalf("pane closed without --close-on-exit: %v", err)
		} else if p.Exited {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("pane never marked exited")
		}
	}
}

// A pane's record naming a pid without its start time could name any
// process (pids are reused): Close refuses it, saying why, and signals
// nothing; List does not count it as a pane.
func TestZellijCloseRefusesPidWithoutStart(t *testing.T) {
	dir := t.TempDir()
	// No Zellij is asked: Close and List read the driver's files.
	d, err := New("zellij", Env{
		Getenv:   func(k string) string { return map[string]string{"ZELLIJ_SESSION_NAME": "s"}[k] },
		LookPath: func(n string) (string, error) { return "/bin/" + n, nil }, Dir: dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	rec := `{"pid":` + strconv.Itoa(cmd.Process.Pid) + `,"start":""}`
	if err := os.WriteFile(filepath.Join(dir, "zellij-pane-7.json"), []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(context.Background(), "7"); err == nil || !strings.Contains(err.Error(), "start time") {
		t.Fatalf("Close of a record without a start time: %v; want a refusal saying why", err)
	}
	var ws syscall.WaitStatus
	if pid, _ := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WNOHANG, nil); pid != 0 {
		t.Fatalf("Close signalled the process a record without a start time named (%v)", ws)
	}
	if hs, err := d.List(context.Background()); err != nil || len(hs) != 0 {
		t.Fatalf("List: %v, %v; want no pane", hs, err)
	}
}
