package interop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/kittytest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// Claude Code's own teammates in a terminal other than tmux: the lead is
// started with 'paneteam claude' in that terminal, as a person would start
// it there, and its Agent tool's teammates must open as that terminal's
// own panes, run that teammate's Claude, and close with the lead.

// nativeTerm is a terminal the lead runs in, seen by the test.
type nativeTerm interface {
	claudetest.Host
	// Panes lists the terminal's panes now; ok is false once the
	// terminal itself has ended (its last pane closed).
	Panes(t *testing.T) (panes []termPane, ok bool)
}

// termPane is one pane of a terminal: its handle, the pid of the program
// it runs, the tab it is in, and its size in cells.
type termPane struct {
	handle      string
	pid         int
	tab         string
	cols, lines int
}

// teammateIn finds the pane whose program is (or started) agent's Claude.
func teammateIn(panes []termPane, agent string) (termPane, bool) {
	for _, pid := range agentProcs(agent) {
		for _, p := range panes {
			if descends(pid, p.pid) {
				return p, true
			}
		}
	}
	return termPane{}, false
}

// kittyTerm is a real kitty under Xvfb, the lead in its first window.
type kittyTerm struct {
	t *testing.T
	k *kittytest.Kitty
}

func (kt *kittyTerm) Start(t testing.TB, argv, env []string, cwd string) int {
	// The first window runs a tiny sh that keeps kitty's own variables
	// and replaces itself with `env -i … claude`: Claude sees exactly
	// env plus kitty's, and the window's pid is Claude's.
	keep := `KITTY_LISTEN_ON="$KITTY_LISTEN_ON" KITTY_WINDOW_ID="$KITTY_WINDOW_ID" KITTY_PID="$KITTY_PID" `
	line := "exec env -i " + keep + tmux.ShellJoin(append(append([]string(nil), env...), argv...))
	// Every window kitty opens gets env too (HOME, the API routing), as
	// a person's kitty passes its own environment to new windows.
	var pass []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TERM=") {
			pass = append(pass, kv)
		}
	}
	kt.k = kittytest.Start(t, kittytest.Options{Argv: []string{"/bin/sh", "-c", line}, Env: pass, Cwd: cwd})
	w, _, ok := kt.k.List(t).Find(kt.k.Window)
	if !ok || w.PID <= 0 {
		t.Fatalf("kitty's first window has no pid: %+v", w)
	}
	return w.PID
}

func (kt *kittyTerm) Type(text string) error {
	_, err := kt.k.Run("send-text", "--match", "id:"+kt.k.Window, text)
	return err
}

func (kt *kittyTerm) Enter() error {
	_, err := kt.k.Run("send-text", "--match", "id:"+kt.k.Window, `\x1b[13u`)
	return err
}

func (kt *kittyTerm) Screen() (string, error) {
	return kt.k.Run("get-text", "--match", "id:"+kt.k.Window)
}

func (kt *kittyTerm) Panes(t *testing.T) ([]termPane, bool) {
	out, err := kt.k.Run("ls")
	if err != nil {
		return nil, false
	}
	var ls kittytest.LS
	if err := jsonUnmarshal(out, &ls); err != nil {
		t.Fatalf("kitty @ ls: %v", err)
	}
	var ps []termPane
	for _, o := range ls {
		for _, tb := range o.Tabs {
			for _, w := range tb.Windows {
				ps = append(ps, termPane{handle: strconv.Itoa(w.ID), pid: w.PID, tab: strconv.Itoa(tb.ID), cols: w.Columns, lines: w.Lines})
			}
		}
	}
	return ps, true
}

// startNativeLead starts 'paneteam claude --layout layout' in term.
func startNativeLead(t *testing.T, term nativeTerm, layout string) *shimLead {
	t.Helper()
	return startShimLeadIn(t, layout, false, term)
}

// nativeTeammates waits for each name's Claude to run in a pane of term,
// and returns those panes.
func nativeTeammates(t *testing.T, l *shimLead, term nativeTerm, names ...string) map[string]termPane {
	t.Helper()
	team := mustConfig(t, l.Session).Name
	out := map[string]termPane{}
	for _, n := range names {
		testutil.Eventually(t, 30*time.Second, n+"'s Claude to run in a pane of the terminal", func() error {
			ps, _ := term.Panes(t)
			p, ok := teammateIn(ps, n+"@"+team)
			out[n] = p
			if ok {
				l.teammates = append(l.teammates, p.handle)
				return nil
			}
			log, _ := os.ReadFile(l.log)
			if len(log) > 3000 {
				log = log[len(log)-3000:]
			}
			return fmt.Errorf("panes %+v, %s's processes %v\nshim log:\n%s", ps, n, agentProcs(n+"@"+team), log)
		})
	}
	return out
}

// exitNativeLead ends the lead as a person closing it would (SIGTERM) and
// checks that no teammate pane and no teammate process is left.
func exitNativeLead(t *testing.T, l *shimLead, term nativeTerm, agents ...string) {
	t.Helper()
	syscall.Kill(l.PID, syscall.SIGTERM)
	testutil.Eventually(t, 30*time.Second, "Claude's lead to exit", func() bool { return !l.Alive() })
	testutil.Eventually(t, 20*time.Second, "the teammates' Claude processes to end", func() bool {
		for _, a := range agents {
			if len(agentProcs(a)) > 0 {
				return false
			}
		}
		return true
	})
	testutil.Eventually(t, 20*time.Second, "the teammates' panes to close", func() error {
		return teammatePanesLeft(t, l, term)
	})
}

// teammatePanesLeft says which of term's panes is still a teammate's: one
// nativeTeammates found, even if its program ended (a pane held open
// after its program is a pane left behind), or one running paneteam's
// gate or a Claude other than the lead.
func teammatePanesLeft(t *testing.T, l *shimLead, term nativeTerm) error {
	ps, ok := term.Panes(t)
	if !ok {
		return nil // the terminal ended with its last pane
	}
	for _, p := range ps {
		if slices.Contains(l.teammates, p.handle) || (p.pid != l.PID && gateOrClaude(p.pid)) {
			return fmt.Errorf("pane %s (pid %d) is still open; panes: %+v", p.handle, p.pid, ps)
		}
	}
	return nil
}

// gateOrClaude reports whether pid runs paneteam's pane gate or a Claude.
func gateOrClaude(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	c := string(b)
	return strings.Contains(c, "shim-gate") || strings.Contains(c, "--agent-id")
}

func TestPaneteamClaudeInKitty(t *testing.T) {
	term := &kittyTerm{t: t}
	l := startNativeLead(t, term, "")
	l.spawn(t, "dora", "eve")
	panes := nativeTeammates(t, l, term, "dora", "eve")
	ps, _ := term.Panes(t)
	var lead termPane
	for _, p := range ps {
		if p.pid == l.PID {
			lead = p
		}
	}
	d, e := panes["dora"], panes["eve"]
	if lead.handle == "" || d.tab != lead.tab || e.tab != lead.tab {
		t.Fatalf("the teammates %+v %+v are not in the lead's tab %+v (all: %+v)", d, e, lead, ps)
	}
	// main-vertical: the lead keeps about 30% of the width, the two
	// teammates share the column beside it, one above the other.
	total := lead.cols + d.cols
	if pct := 100 * lead.cols / total; pct < 22 || pct > 38 {
		t.Errorf("the lead has %d of %d columns (%d%%), want about 30%%", lead.cols, total, pct)
	}
	if d.cols != e.cols || d.lines+e.lines > lead.lines+1 || d.lines >= lead.lines {
		t.Errorf("dora %+v and eve %+v are not stacked beside the lead %+v", d, e, lead)
	}
	checkNativeStatus(t, l, "dora", "eve")
	ls := term.k.List(t)
	for n, p := range map[string]termPane{"dora": d, "eve": e} {
		if w, _, _ := ls.Find(p.handle); w.Title != n {
			t.Errorf("kitty @ ls shows %s's window titled %q; want %s", n, w.Title, n)
		}
	}
	text := func(h string) []string {
		out, _ := term.k.Run("get-text", "--match", "id:"+h)
		return strings.Split(out, "\n")
	}
	writeCapture(t, "kitty", 100*lead.cols/total, capturePane{"claude (lead)", text(lead.handle)},
		capturePane{"dora", text(d.handle)}, capturePane{"eve", text(e.handle)})
	if bad := l.unknownCalls(t); len(bad) > 0 {
		t.Errorf("the shim refused calls of Claude Code %s:\n%s", claudetest.Version(), strings.Join(bad, "\n"))
	}
	cfg := mustConfig(t, l.Session)
	exitNativeLead(t, l, term, "dora@"+cfg.Name, "eve@"+cfg.Name)
	if bad, _ := outsideContract(t, l.log); len(bad) > 0 {
		t.Errorf("Claude Code %s made calls docs/CLAUDE-TMUX.md does not list:\n%s", claudetest.Version(), strings.Join(bad, "\n"))
	}
	// The lead closed every pane it had: its folder of paneteam's tmux
	// holds none, and the next 'paneteam claude' or cleanup sweeps it.
	st, err := virtualtmux.Read(filepath.Join(l.state, "vtmux", strconv.Itoa(l.PID)))
	if err != nil || len(st.Panes) != 0 {
		t.Errorf("paneteam's tmux for the lead after its exit: %+v, %v; want it to hold no pane", st, err)
	}
}

// TestPaneteamClaudeInKittyTabsThenKilledLead: with --layout windows each
// teammate opens in a kitty tab of its own and the lead's tab keeps one
// window. Then the lead is killed with SIGKILL, which closes nothing;
// 'paneteam cleanup --orphans' closes the teammates' windows in kitty and
// their Claude processes end with them.
func TestPaneteamClaudeInKittyTabsThenKilledLead(t *testing.T) {
	term := &kittyTerm{t: t}
	l := startNativeLead(t, term, "windows")
	l.spawn(t, "dora", "eve")
	panes := nativeTeammates(t, l, term, "dora", "eve")
	ps, _ := term.Panes(t)
	var lead termPane
	inLeadTab := 0
	for _, p := range ps {
		if p.pid == l.PID {
			lead = p
		}
	}
	for _, p := range ps {
		if p.tab == lead.tab {
			inLeadTab++
		}
	}
	if d, e := panes["dora"], panes["eve"]; inLeadTab != 1 || d.tab == lead.tab || e.tab == lead.tab || d.tab == e.tab {
		t.Fatalf("want a tab per teammate and the lead's tab alone: lead %+v dora %+v eve %+v", lead, d, e)
	}
	for _, o := range term.k.List(t) {
		for _, tb := range o.Tabs {
			for n, p := range panes {
				if strconv.Itoa(tb.ID) == p.tab && tb.Title != n {
					t.Errorf("kitty @ ls shows %s's tab titled %q; want %s", n, tb.Title, n)
				}
			}
		}
	}

	killLeadThenCleanup(t, l, "kitty", "", "dora", "eve")
	noTeammatePanes(t, l, term)
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// checkNativeStatus: 'paneteam status', run from another shell of the
// person's, lists each teammate with a live pane (not gone).
func checkNativeStatus(t *testing.T, l *shimLead, names ...string) {
	t.Helper()
	var st []struct {
		Members []struct {
			Name  string `json:"name"`
			State string `json:"state"`
			Pane  string `json:"pane"`
		} `json:"members"`
	}
	out := ptOK(t, l.Session, "status", "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st) != 1 {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	for _, n := range names {
		found := false
		for _, m := range st[0].Members {
			if m.Name == n {
				found = true
				if m.State == "gone" || m.Pane != "alive" {
					t.Errorf("status shows %s as %s with pane %q, want its live pane:\n%s", n, m.State, m.Pane, out)
				}
			}
		}
		if !found {
			t.Errorf("status does not list %s:\n%s", n, out)
		}
	}
}

// killLeadThenCleanup kills the lead with SIGKILL, which closes nothing,
// checks that its teammates outlive it, and runs 'paneteam cleanup
// --orphans' from a shell of the person's (path: a PATH where the
// terminal's program is installed, "" for the test's): it must report
// closing each teammate's pane in terminal, and their Claude processes
// must end. It returns cleanup's output.
func killLeadThenCleanup(t *testing.T, l *shimLead, terminal, path string, names ...string) string {
	t.Helper()
	cfg := mustConfig(t, l.Session)
	var agents []string
	for _, n := range names {
		agents = append(agents, n+"@"+cfg.Name)
	}
	syscall.Kill(l.PID, syscall.SIGKILL)
	testutil.Eventually(t, 10*time.Second, "Claude's lead to die", func() bool { return !l.Alive() })
	time.Sleep(time.Second) // nothing closes the teammates' panes on its own
	for _, a := range agents {
		if len(agentProcs(a)) != 1 {
			t.Fatalf("%s's Claude did not outlive its killed lead: the test proves nothing", a)
		}
	}
	extra := []string{"PANETEAM_STATE_DIR=" + l.state}
	if path != "" {
		extra = append(extra, "PATH="+path+":"+os.Getenv("PATH"))
	}
	out, errOut, code := ptWith(t, l.Session, extra, "cleanup", "--orphans")
	if code != 0 {
		t.Fatalf("cleanup --orphans: exit %d\n%s%s", code, out, errOut)
	}
	for _, a := range agents {
		if !strings.Contains(out, "closed pane") || !strings.Contains(out, a) || !strings.Contains(out, terminal) {
			t.Errorf("cleanup --orphans did not report closing %s's pane in %s:\n%s", a, terminal, out)
		}
	}
	testutil.Eventually(t, 15*time.Second, "the teammates' Claude processes to end", func() bool {
		for _, a := range agents {
			if len(agentProcs(a)) > 0 {
				return false
			}
		}
		return true
	})
	return out
}

// noTeammatePanes waits until term shows no pane running paneteam's gate
// or a Claude (or has ended).
func noTeammatePanes(t *testing.T, l *shimLead, term nativeTerm) {
	t.Helper()
	testutil.Eventually(t, 15*time.Second, "the teammates' panes to close", func() error {
		return teammatePanesLeft(t, l, term)
	})
}
