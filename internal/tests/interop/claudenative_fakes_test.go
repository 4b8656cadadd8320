package interop

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// fakeTerm is WezTerm or Zellij, neither of which is packaged here: the
// faithful fakes of their command lines (internal/panes/native/testdata)
// run each pane's program under a pseudo-terminal of its own. The lead is
// the first pane's program.
type fakeTerm struct {
	kind string
	tm   *nativetest.Terminal
}

// fakeTermVars are the variables each fake terminal gives its panes
// (ZELLIJ_SOCKET_DIR is where the fake keeps its session).
var fakeTermVars = map[string][]string{
	nativetest.WezTerm: {"WEZTERM_PANE", "WEZTERM_UNIX_SOCKET", "TERM_PROGRAM"},
	nativetest.Zellij:  {"ZELLIJ", "ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID", "ZELLIJ_SOCKET_DIR"},
}

func (ft *fakeTerm) Start(t testing.TB, argv, env []string, cwd string) int {
	// The fake's CLI goes first on the PATH the lead (and so paneteam)
	// sees, as the real terminal's program is installed.
	bin := filepath.Dir(nativetest.FakeBin(t, ft.kind))
	env = append([]string(nil), env...)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + bin + ":" + kv[len("PATH="):]
		}
	}
	keep := ""
	for _, k := range fakeTermVars[ft.kind] {
		keep += k + `="$` + k + `" `
	}
	line := "exec env -i " + keep + tmux.ShellJoin(append(append([]string(nil), env...), argv...))
	var pass []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TERM=") {
			pass = append(pass, kv)
		}
	}
	ft.tm = nativetest.Start(t, ft.kind, []string{"/bin/sh", "-c", line}, nativetest.Options{Cwd: cwd, Env: pass})
	var pid int
	testutil.Eventually(t, 10*time.Second, "the lead's pane to start", func() bool {
		p, err := ft.tm.Pane(ft.tm.First)
		pid = p.PID
		return err == nil && pid > 0
	})
	return pid
}

func (ft *fakeTerm) Type(text string) error { return ft.tm.Type(ft.tm.First, text) }
func (ft *fakeTerm) Enter() error           { return ft.tm.Type(ft.tm.First, "\r") }
func (ft *fakeTerm) Screen() (string, error) {
	s, err := ft.tm.Screen(ft.tm.First)
	// What the pane printed so far, escapes taken out: the last part
	// is what is on the screen now.
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return s, err
}

func (ft *fakeTerm) Panes(t *testing.T) ([]termPane, bool) {
	ps, err := ft.tm.Panes()
	if err != nil {
		return nil, false
	}
	var out []termPane
	// A pane whose program ended but which the terminal keeps open
	// (Zellij's held command pane) is still a pane on the person's
	// screen: it is listed.
	for _, p := range ps {
		out = append(out, termPane{handle: strconv.Itoa(p.ID), pid: p.PID, tab: strconv.Itoa(p.TabID), cols: p.Cols, lines: p.Rows})
	}
	return out, true
}

// split is how the fake recorded pane h was made.
func (ft *fakeTerm) split(t *testing.T, h string) nativetest.Pane {
	t.Helper()
	id, _ := strconv.Atoi(h)
	p, err := ft.tm.Pane(id)
	if err != nil {
		t.Fatalf("pane %s of the fake %s: %v", h, ft.kind, err)
	}
	return p
}

// TestPaneteamClaudeInWezTerm: in WezTerm the teammates split the lead's
// pane as main-vertical says (the first to its right at 70%, the next
// below the first), each runs its Claude, and they close with the lead.
func TestPaneteamClaudeInWezTerm(t *testing.T) {
	term := &fakeTerm{kind: nativetest.WezTerm}
	l := startNativeLead(t, term, "main-vertical")
	l.spawn(t, "dora", "eve")
	panes := nativeTeammates(t, l, term, "dora", "eve")
	d, e := term.split(t, panes["dora"].handle), term.split(t, panes["eve"].handle)
	if d.SplitFrom != term.tm.First || d.Direction != "right" || d.Percent != 70 {
		t.Errorf("dora's pane was made %+v: want a split right of the lead's pane %d at 70%%", d, term.tm.First)
	}
	if e.SplitFrom != d.ID || e.Direction != "bottom" {
		t.Errorf("eve's pane was made %+v: want a split below dora's pane %d", e, d.ID)
	}
	checkNativeStatus(t, l, "dora", "eve")
	writeCapture(t, "wezterm", 30, capturePane{"claude (lead): pane " + strconv.Itoa(term.tm.First), []string{"paneteam claude", "", "> start teammate dora", "> start teammate eve"}},
		ft(term, "dora", d), ft(term, "eve", e))
	if bad := l.unknownCalls(t); len(bad) > 0 {
		t.Errorf("the shim refused calls of Claude Code %s:\n%s", claudetest.Version(), strings.Join(bad, "\n"))
	}
	cfg := mustConfig(t, l.Session)
	exitNativeLead(t, l, term, "dora@"+cfg.Name, "eve@"+cfg.Name)
}

// TestPaneteamClaudeInZellijThenKilledLead: in Zellij the teammates open
// as command panes beside the lead (Zellij splits the focused pane), and
// a lead killed with SIGKILL leaves them to 'cleanup --orphans', which
// ends them through their processes (Zellij's close-pane would close
// whatever pane has the focus).
func TestPaneteamClaudeInZellijThenKilledLead(t *testing.T) {
	term := &fakeTerm{kind: nativetest.Zellij}
	l := startNativeLead(t, term, "")
	l.spawn(t, "dora", "eve")
	panes := nativeTeammates(t, l, term, "dora", "eve")
	d, e := term.split(t, panes["dora"].handle), term.split(t, panes["eve"].handle)
	if d.SplitFrom != term.tm.First || d.Direction != "right" || !d.CloseOnExit {
		t.Errorf("dora's pane was made %+v: want a command pane right of the lead's pane %d that closes when its program ends", d, term.tm.First)
	}
	if e.SplitFrom != d.ID || e.Direction != "down" || !e.CloseOnExit {
		t.Errorf("eve's pane was made %+v: want a command pane below dora's %d that closes when its program ends", e, d.ID)
	}
	if d.Title != "dora" || e.Title != "eve" {
		t.Errorf("Zellij names dora's and eve's panes %q and %q; want them named after their teammates", d.Title, e.Title)
	}
	writeCapture(t, "zellij", 50, capturePane{"claude (lead): pane " + strconv.Itoa(term.tm.First), []string{"paneteam claude", "", "> start teammate dora", "> start teammate eve"}},
		ft(term, "dora", d), ft(term, "eve", e))
	// Run from a shell of the person's, where zellij is installed.
	killLeadThenCleanup(t, l, "zellij", filepath.Dir(nativetest.FakeBin(t, nativetest.Zellij)), "dora", "eve")
	noTeammatePanes(t, l, term)
	calls, _ := term.tm.Calls()
	for _, c := range calls {
		if strings.Contains(strings.Join(c, " "), "close-pane") {
			t.Errorf("paneteam called Zellij's close-pane, which closes the focused pane: %q", c)
		}
	}
}

// ft is a fake terminal's pane for a capture: how it was made and what
// runs in it (the fakes keep no rendered screen).
func ft(term *fakeTerm, name string, p nativetest.Pane) capturePane {
	how := "split " + p.Direction + " of pane " + strconv.Itoa(p.SplitFrom)
	if p.Percent != 0 {
		how += ", " + strconv.Itoa(p.Percent) + "%"
	}
	lines := []string{how, strconv.Itoa(p.Cols) + "x" + strconv.Itoa(p.Rows)}
	for _, pid := range procsWith("--agent-name", name) {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil {
			args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
			lines = append(lines, "claude "+strings.Join(args[1:], " "))
		}
	}
	return capturePane{name + ": pane " + strconv.Itoa(p.ID), lines}
}
