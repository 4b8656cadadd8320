package shim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// testTerm is a terminal whose panes are plain processes of this test:
// it runs Open's argv as the terminal would (a session of its own, no
// shell) and records where each pane was asked to go. It stands in for
// kitty, WezTerm, Zellij and iTerm2, whose drivers have tests of their
// own against the real terminal or a faithful fake.
type testTerm struct {
	mu     sync.Mutex
	next   int
	procs  map[native.Handle]*exec.Cmd
	places []native.Place
	closed []native.Handle
	// arranged counts the layouts asked of the terminal.
	arranged int
	// byHand are panes the person closed in the terminal: gone from
	// List, refused as a split's target, their programs left running
	// (a hang-up they have not yet answered).
	byHand map[native.Handle]bool
	// titles are the names SetTitle gave panes.
	titles map[native.Handle]string
}

func (tt *testTerm) Arrange(ctx context.Context, kind string, leadPercent int) error {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.arranged++
	return nil
}

func (tt *testTerm) Name() string                    { return "testterm" }
func (tt *testTerm) Probe(ctx context.Context) error { return nil }

func (tt *testTerm) Open(ctx context.Context, o native.Open) (native.Handle, error) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if b := o.Place.Beside; b != "" && (tt.byHand[b] || slices.Contains(tt.closed, b) || tt.procs[b] == nil) {
		return "", fmt.Errorf("Error: Session '%s' not found", b)
	}
	tt.next++
	h := native.Handle("w" + strconv.Itoa(tt.next))
	cmd := exec.Command(o.Argv[0], o.Argv[1:]...)
	// What a terminal gives its panes: its own environment (a tmux it
	// was started in, a variable the lead never had) and the variables
	// of the new pane.
	cmd.Env = append(os.Environ(), "TMUX=/should/not/reach,1,0", "TMUX_PANE=%9",
		"TERMINAL_ONLY=x", "KITTY_WINDOW_ID="+string(h))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go cmd.Wait()
	tt.procs[h] = cmd
	tt.places = append(tt.places, o.Place)
	return h, nil
}

func (tt *testTerm) Close(ctx context.Context, h native.Handle) error {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.closed = append(tt.closed, h)
	if c := tt.procs[h]; c != nil && c.Process != nil {
		c.Process.Kill()
	}
	return nil
}

// SetTitle names a pane; "refuse" is a name the terminal refuses.
func (tt *testTerm) SetTitle(ctx context.Context, h native.Handle, title string, tab bool) error {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if title == "refuse" {
		return fmt.Errorf("no pane %s to name", h)
	}
	tt.titles[h] = title
	return nil
}

func (tt *testTerm) List(ctx context.Context) ([]native.Handle, error) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	var hs []native.Handle
	for h := range tt.procs {
		if !tt.byHand[h] && !slices.Contains(tt.closed, h) {
			hs = append(hs, h)
		}
	}
	return hs, nil
}

type vrig struct {
	t     *testing.T
	dir   string
	term  *testTerm
	env   map[string]string
	mu    sync.Mutex
	calls int // calls made, each one line of the trace log
}

func newVrig(t *testing.T, lay string) *vrig {
	t.Helper()
	tt := &testTerm{procs: map[native.Handle]*exec.Cmd{}, byHand: map[native.Handle]bool{}, titles: map[native.Handle]string{}}
	native.Register("testterm", func(native.Env) (native.Terminal, error) { return tt, nil })
	dir := testutil.ShortTempDir(t)
	state := filepath.Join(dir, "v")
	start, _ := proc.StartTime(os.Getpid())
	tmuxVar, err := virtualtmux.Create(state, virtualtmux.State{Terminal: "testterm", Env: map[string]string{"TESTTERM_ADDR": "x"},
		Lead: strconv.Itoa(os.Getpid()) + ":" + start, Exe: testutil.Binary(t), Log: filepath.Join(dir, "shim.log")})
	if err != nil {
		t.Fatal(err)
	}
	r := &vrig{t: t, dir: state, term: tt, env: map[string]string{
		EnvDir: dir, virtualtmux.EnvTerminal: "testterm", virtualtmux.EnvState: state, EnvLayout: lay,
		"TMUX": tmuxVar, "TMUX_PANE": "%0", "PATH": os.Getenv("PATH"),
		EnvTrace: "1", EnvLog: filepath.Join(dir, "shim.log"),
	}}
	t.Cleanup(func() {
		st, _ := virtualtmux.Read(state)
		for _, p := range st.Panes {
			endGate(p.Gate)
		}
	})
	return r
}

func (r *vrig) sock() string { return filepath.Join(r.dir, "tmux") }

// call runs one tmux call as Claude's lead makes it.
func (r *vrig) call(args ...string) (string, string, int) {
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	var out, errb bytes.Buffer
	s := &Shim{Getenv: func(k string) string { return r.env[k] }, Stdout: &out, Stderr: &errb, PPID: os.Getpid()}
	for k, v := range r.env {
		s.Environ = append(s.Environ, k+"="+v)
	}
	rc := s.Run(append([]string{"tmux"}, args...))
	return out.String(), errb.String(), rc
}

func (r *vrig) must(args ...string) string {
	r.t.Helper()
	out, errOut, rc := r.call(args...)
	if rc != 0 {
		r.t.Fatalf("tmux %q: exit %d: %s", args, rc, errOut)
	}
	return out
}

// spawn makes a teammate's pane as Claude Code's lead does and
// starts line in it; it returns the pane id.
func (r *vrig) spawn(name, line string) string {
	r.t.Helper()
	s := r.sock()
	r.must("-S", s, "display-message", "-t", "%0", "-p", "#{window_id}")
	panes := strings.Fields(r.must("-S", s, "list-panes", "-t", "@0", "-F", "#{pane_id}"))
	target := panes[len(panes)-1]
	dir := "-h"
	args := []string{"-S", s, "split-window", "-d", "-t", target, dir}
	if len(panes) == 1 {
		args = append(args, "-l", "70%")
	}
	pane := strings.TrimSpace(r.must(append(args, "-P", "-F", "#{pane_id}", "--", "cat")...))
	r.must("-S", s, "set-option", "-p", "-t", pane, "pane-border-style", "fg=blue")
	r.must("-S", s, "select-pane", "-t", pane, "-T", name)
	if len(panes) == 1 {
		r.must("-S", s, "set-option", "-w", "-t", "@0", "pane-border-status", "top")
	} else {
		r.must("-S", s, "select-layout", "-t", "@0", "main-vertical")
		r.must("-S", s, "resize-pane", "-t", "%0", "-x", "30%")
	}
	r.must("-S", s, "set-option", "-p", "-t", pane, "remain-on-exit", "failed")
	r.must("-S", s, "respawn-pane", "-k", "-t", pane, "--", line)
	return pane
}

func waitFile(t *testing.T, path string) string {
	t.Helper()
	var b []byte
	testutil.Eventually(t, 10*time.Second, path+" to be written", func() bool {
		var err error
		b, err = os.ReadFile(path)
		return err == nil && len(b) > 0
	})
	return string(b)
}

func TestVirtualServerRunsClaudesTeammatesInTheTerminal(t *testing.T) {
	r := newVrig(t, "main-vertical")
	work := t.TempDir()
	// Claude's line, as tmux runs it: through /bin/sh -c, in the
	// terminal's environment less $TMUX (the teammate is a plain program
	// of the terminal, not a tmux pane).
	p1 := r.spawn("dora", "cd "+work+" && env AGENT=dora sh -c 'echo \"$AGENT|${TMUX-none}|${TMUX_PANE-none}\" > out1; exec sleep 300' --agent-id dora@t")
	if p1 != "%1" {
		t.Fatalf("first pane id = %q, want %%1", p1)
	}
	// The trace log holds each call once, with what it printed.
	if b, _ := os.ReadFile(r.env[EnvLog]); strings.Count(string(b), "\n") != r.calls || !strings.Contains(string(b), `"out":"%1\n"`) {
		t.Fatalf("%d calls, trace log:\n%s", r.calls, b)
	}
	if got := strings.TrimSpace(waitFile(t, filepath.Join(work, "out1"))); got != "dora|none|none" {
		t.Fatalf("the teammate saw %q, want dora|none|none", got)
	}
	p2 := r.spawn("eve", "cd "+work+" && echo eve > out2 && exec sleep 300")
	waitFile(t, filepath.Join(work, "out2"))

	// Placement: the first beside the lead at 70%, the second below the
	// first, as main-vertical stacks teammates.
	if got := r.term.places; len(got) != 2 ||
		got[0] != (native.Place{Beside: "", Horizontal: true, Percent: 70}) ||
		got[1].Beside != "w1" || got[1].Horizontal || got[1].OwnTab {
		t.Fatalf("places = %+v", got)
	}
	if got := strings.Fields(r.must("-S", r.sock(), "list-panes", "-t", "@0", "-F", "#{pane_id}")); strings.Join(got, " ") != "%0 %1 %2" {
		t.Fatalf("list-panes = %v", got)
	}
	st, _ := virtualtmux.Read(r.dir)
	if len(st.Panes) != 2 || st.Panes[0].Agent != "dora@t" || st.Panes[0].Title != "dora" {
		t.Fatalf("state = %+v", st.Panes)
	}
	gate := st.Panes[1].Gate

	// kill-pane ends the teammate's process and closes its pane.
	r.must("-S", r.sock(), "kill-pane", "-t", p2)
	if virtualtmux.GateAlive(gate) {
		t.Fatal("the killed pane's teammate still runs")
	}
	if len(r.term.closed) != 1 || r.term.closed[0] != "w2" {
		t.Fatalf("closed = %v, want [w2]", r.term.closed)
	}
	if got := strings.Fields(r.must("-S", r.sock(), "list-panes", "-t", "@0", "-F", "#{pane_id}")); strings.Join(got, " ") != "%0 %1" {
		t.Fatalf("list-panes after kill = %v", got)
	}
	// A pane whose teammate ended on its own leaves the listing too.
	st, _ = virtualtmux.Read(r.dir)
	endGate(st.Panes[0].Gate)
	if got := strings.Fields(r.must("-S", r.sock(), "list-panes", "-t", "@0", "-F", "#{pane_id}")); strings.Join(got, " ") != "%0" {
		t.Fatalf("list-panes after the teammate exited = %v", got)
	}
	if _, errOut, rc := r.call("-S", r.sock(), "kill-pane", "-t", "%7"); rc != 1 || !strings.Contains(errOut, "can't find pane: %7") {
		t.Fatalf("kill of an unknown pane: %d %q", rc, errOut)
	}
}

// TestVirtualServerGivesTeammatesTheLeadsEnvironment: a teammate runs
// in its lead's environment (an API key, a PATH set up by the lead's
// shell), as it would on the private tmux server Claude starts outside
// tmux, not in the terminal's; only the terminal's variables of its own
// pane come from the terminal.
func TestVirtualServerGivesTeammatesTheLeadsEnvironment(t *testing.T) {
	r := newVrig(t, "")
	r.env["LEAD_ONLY"] = "from the lead"
	r.env["KITTY_WINDOW_ID"] = "lead"
	r.env["PATH"] = "/lead/bin:" + os.Getenv("PATH")
	work := t.TempDir()
	r.spawn("dora", "cd "+work+` && echo "$LEAD_ONLY|$KITTY_WINDOW_ID|${TERMINAL_ONLY-none}|${TMUX-none}|${`+EnvDir+`-none}|$PATH" > out; exec sleep 300`)
	want := "from the lead|w1|none|none|none|/lead/bin:" + os.Getenv("PATH")
	if got := strings.TrimSpace(waitFile(t, filepath.Join(work, "out"))); got != want {
		t.Fatalf("the teammate saw\n%s\nwant\n%s", got, want)
	}
	// The lead's environment reached the gate in a file only its owner
	// reads, used once.
	st, _ := virtualtmux.Read(r.dir)
	if _, err := os.Stat(st.Panes[0].Gate + ".run"); !os.IsNotExist(err) {
		t.Errorf("the pane's command file is left: %v", err)
	}
}

// TestVirtualServerKillsPanesSideBySide: at its exit Claude's lead sends
// kill-pane for every teammate; a teammate slow to end (one that ignores
// the hang-up) holds up only its own kill, and the lead's window is not
// arranged again once no teammate is left in it.
func TestVirtualServerKillsPanesSideBySide(t *testing.T) {
	// A long hang-up wait, so that one after the other (two waits) and
	// side by side (one) are seconds apart, whatever the machine's load.
	old := gateHangUp
	gateHangUp = 8 * time.Second
	defer func() { gateHangUp = old }()
	r := newVrig(t, "main-vertical")
	work := t.TempDir()
	var panes []string
	for _, n := range []string{"a", "b"} {
		panes = append(panes, r.spawn(n, "cd "+work+" && trap '' HUP && echo "+n+" > "+n+" && exec sleep 300"))
		waitFile(t, filepath.Join(work, n))
	}
	st, _ := virtualtmux.Read(r.dir)
	r.term.mu.Lock()
	r.term.arranged = 0
	r.term.mu.Unlock()
	began := time.Now()
	var wg sync.WaitGroup
	for _, p := range panes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, errOut, rc := r.call("-S", r.sock(), "kill-pane", "-t", p); rc != 0 {
				t.Errorf("kill-pane %s: %d %s", p, rc, errOut)
			}
		}()
	}
	wg.Wait()
	took := time.Since(began)
	for _, p := range st.Panes {
		if virtualtmux.GateAlive(p.Gate) {
			t.Errorf("pane %s's teammate still runs", p.ID)
		}
	}
	// Each kill waits out the hang-up once (gateHangUp); one after the
	// other they would take twice that.
	if took > gateHangUp+gateHangUp/2 {
		t.Errorf("two kill-panes took %s: they ran one after the other", took)
	}
	r.term.mu.Lock()
	arranged := r.term.arranged
	r.term.mu.Unlock()
	if arranged > 1 {
		t.Errorf("the lead's window was arranged %d times as its teammates left; want at most once, none after the last", arranged)
	}
	if got := strings.Fields(r.must("-S", r.sock(), "list-panes", "-t", "@0", "-F", "#{pane_id}")); strings.Join(got, " ") != "%0" {
		t.Fatalf("list-panes after the kills = %v", got)
	}
}

func TestVirtualServerAnswersScreenProbes(t *testing.T) {
	r := newVrig(t, "")
	if out := r.must("show", "-gv", "focus-events"); out != "off\n" {
		t.Fatalf("show -gv focus-events = %q", out)
	}
	out := r.must("display-message", "-p", "-t", "%0", "#{client_termtype}\t#{allow-passthrough}\t#{focus-events}\t#{pane_top}\t#{pane_left}\t#{status}\t#{status-position}\t#{window_bigger}")
	if out != "\t0\t0\t0\t0\toff\tbottom\t0\n" {
		t.Fatalf("screen probe = %q", out)
	}
	if out := r.must("display-message", "-p", "-t", "%0", "#{session_name}:#{window_id}.#{pane_id}"); out != "paneteam:@0.%0\n" {
		t.Fatalf("pane probe = %q", out)
	}
	// A call the contract does not list fails loudly, naming it.
	if _, errOut, rc := r.call("-S", r.sock(), "swap-pane", "-s", "%1"); rc == 0 || !strings.Contains(errOut, "swap-pane") {
		t.Fatalf("unknown call: %d %q", rc, errOut)
	}
}

func TestVirtualServerWindowsLayoutOpensTabs(t *testing.T) {
	r := newVrig(t, "windows")
	work := t.TempDir()
	r.spawn("a", "cd "+work+" && echo a > a && exec sleep 300")
	waitFile(t, filepath.Join(work, "a"))
	if got := r.term.places; len(got) != 1 || !got[0].OwnTab {
		t.Fatalf("places = %+v, want a tab of its own", got)
	}
	// The lead's window lists only the lead: the teammate is elsewhere.
	if got := strings.Fields(r.must("-S", r.sock(), "list-panes", "-t", "@0", "-F", "#{pane_id}")); strings.Join(got, " ") != "%0" {
		t.Fatalf("list-panes = %v", got)
	}
}

func TestCloseAllClosesAnOrphanedLeadsPanes(t *testing.T) {
	r := newVrig(t, "")
	work := t.TempDir()
	r.spawn("a", "cd "+work+" && echo a > a && exec sleep 300")
	waitFile(t, filepath.Join(work, "a"))
	st, _ := virtualtmux.Read(r.dir)
	gate := st.Panes[0].Gate
	ids, err := CloseAll(context.Background(), r.dir, func(k string) string { return r.env[k] })
	if err != nil || len(ids) != 1 || ids[0] != "%1" {
		t.Fatalf("CloseAll = %v, %v", ids, err)
	}
	if virtualtmux.GateAlive(gate) {
		t.Fatal("the orphaned teammate still runs")
	}
	if _, err := os.Stat(r.dir); !os.IsNotExist(err) {
		t.Fatalf("the virtual server's folder is left: %v", err)
	}
}

func TestSweepVirtualRemovesOnlyEmptyFoldersOfGoneLeads(t *testing.T) {
	parent := t.TempDir()
	dead := exec.Command("true")
	dead.Run()
	gone := strconv.Itoa(dead.Process.Pid) + ":1"
	start, _ := proc.StartTime(os.Getpid())
	live := strconv.Itoa(os.Getpid()) + ":" + start
	mk := func(name, lead string, panes int) string {
		dir := filepath.Join(parent, name)
		if _, err := virtualtmux.Create(dir, virtualtmux.State{Terminal: "testterm", Lead: lead, Exe: "/bin/paneteam"}); err != nil {
			t.Fatal(err)
		}
		if panes > 0 {
			st, _ := virtualtmux.Read(dir)
			st.Panes = []virtualtmux.Pane{{ID: "%1", Handle: "w1", Gate: filepath.Join(dir, "gates", "1")}}
			b, _ := json.Marshal(st)
			os.WriteFile(filepath.Join(dir, "panes.json"), b, 0o600)
		}
		return dir
	}
	emptyGone, emptyLive, withPanes := mk("a", gone, 0), mk("b", live, 0), mk("c", gone, 1)
	virtualtmux.Sweep(parent)
	if _, err := os.Stat(emptyGone); !os.IsNotExist(err) {
		t.Errorf("the folder of a gone lead with no pane is left")
	}
	for _, d := range []string{emptyLive, withPanes} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: a live lead's, or one with panes for cleanup --orphans to close", d)
		}
	}
}

// TestCloseAllFromCronUsesTheLeadsTerminalProgram: cron's PATH lacks the
// terminal's program (kitty, wezterm, it2 live elsewhere); 'cleanup
// --orphans' run from there closes a dead lead's panes with the program
// the lead found.
func TestCloseAllFromCronUsesTheLeadsTerminalProgram(t *testing.T) {
	tt := &testTerm{procs: map[native.Handle]*exec.Cmd{}, byHand: map[native.Handle]bool{}, titles: map[native.Handle]string{}}
	var used string
	native.Register("cronterm", func(e native.Env) (native.Terminal, error) {
		p, err := e.LookPath("cronterm-cli")
		if err != nil {
			return nil, fmt.Errorf("cronterm-cli is not on PATH: %w", native.ErrUnavailable)
		}
		used = p
		return tt, nil
	})
	dir := testutil.ShortTempDir(t)
	prog := filepath.Join(dir, "opt", "cronterm-cli")
	os.MkdirAll(filepath.Dir(prog), 0o700)
	testutil.WriteExecutable(t, prog, []byte("#!/bin/sh\n"))
	state := filepath.Join(dir, "v")
	if _, err := virtualtmux.Create(state, virtualtmux.State{Terminal: "cronterm", Lead: "1:1", Exe: "/bin/paneteam", Programs: map[string]string{"cronterm-cli": prog}}); err != nil {
		t.Fatal(err)
	}
	st, _ := virtualtmux.Read(state)
	st.Panes = []virtualtmux.Pane{{ID: "%1", Handle: "w1", Gate: filepath.Join(state, "gates", "1")}}
	b, _ := json.Marshal(st)
	os.WriteFile(filepath.Join(state, "panes.json"), b, 0o600)

	cron := map[string]string{"PATH": "/usr/bin:/bin"}
	ids, err := CloseAll(context.Background(), state, func(k string) string { return cron[k] })
	if err != nil || len(ids) != 1 || used != prog || len(tt.closed) != 1 || tt.closed[0] != "w1" {
		t.Fatalf("CloseAll from cron's PATH = %v, %v; used %q, closed %v", ids, err, used, tt.closed)
	}
}
