package interop

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/iterm2/it2test"
	"github.com/paneteam/paneteam/tmux"
)

// iterm2Term is iTerm2, which cannot run here: paneteam's fake it2
// (iterm2/testdata/fakeit2) with real sessions, each running its program
// under a pseudo-terminal (a new session runs bash without rc files, as
// a person's shell). The lead is the first session's program, and it2 is
// first on the PATH, as a person's iTerm2 tab has them.
type iterm2Term struct {
	f    *it2test.Fake
	tm   *nativetest.Terminal
	lead int // the lead's session's program, in tm
}

// iterm2Vars are the variables iTerm2 gives each session's program.
var iterm2Vars = []string{"ITERM_SESSION_ID", "TERM_SESSION_ID", "ITERM_PROFILE", "TERM_PROGRAM",
	"TERM_PROGRAM_VERSION", "LC_TERMINAL", "LC_TERMINAL_VERSION"}

func (it *iterm2Term) Start(t testing.TB, argv, env []string, cwd string) int {
	it.f = it2test.New(t, it2test.Python)
	env = append([]string(nil), env...)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + it.f.Dir + ":" + kv[len("PATH="):]
		}
	}
	keep := ""
	for _, k := range iterm2Vars {
		keep += k + `="$` + k + `" `
	}
	line := "exec env -i " + keep + tmux.ShellJoin(append(append([]string(nil), env...), argv...))
	var pass []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TERM=") {
			pass = append(pass, kv)
		}
	}
	it.tm = it.f.Host(it2test.HostOptions{Env: pass, Lead: []string{"/bin/sh", "-c", line}, Cwd: cwd})
	var pid int
	testutil.Eventually(t, 10*time.Second, "the lead's session to start", func() bool {
		p, ok := it.f.Program(it.f.LeadID)
		pid, it.lead = p.PID, p.ID
		return ok && pid > 0
	})
	return pid
}

func (it *iterm2Term) Type(text string) error { return it.tm.Type(it.lead, text) }
func (it *iterm2Term) Enter() error           { return it.tm.Type(it.lead, "\r") }
func (it *iterm2Term) Screen() (string, error) {
	s, err := it.tm.Screen(it.lead)
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return s, err
}

// Panes lists the sessions it2 lists, with their programs' pids.
func (it *iterm2Term) Panes(t *testing.T) ([]termPane, bool) {
	ls, err := it.f.Listed()
	if err != nil {
		t.Fatalf("the fake iTerm2: %v", err)
	}
	var out []termPane
	for _, s := range ls {
		p, _ := it.f.Program(s.ID)
		out = append(out, termPane{handle: s.ID, pid: p.PID, tab: s.TabID, cols: s.Cols, lines: s.Rows})
	}
	return out, true
}

// unquote undoes iterm2.Quote.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], `'\''`, `'`)
	}
	return s
}

// gateLineRE is the one line paneteam types into a teammate's session.
var gateLineRE = regexp.MustCompile(`^exec ('[^']*'|[^' ]+) pane-exec ('[^']*'|[^' ]+)\r?$`)

// checkTyped checks that every text paneteam typed into iTerm2 is its
// fixed gate line ('exec <paneteam> pane-exec <launch file>'), one per
// teammate session, nothing of Claude's command line among it, and
// returns the sessions typed into.
func (it *iterm2Term) checkTyped(t *testing.T, l *shimLead) []string {
	t.Helper()
	exe, _ := os.Stat(testutil.Binary(t))
	vdir := filepath.Join(l.state, "vtmux", strconv.Itoa(l.PID))
	var typed []string
	for _, c := range it.f.Calls() {
		if len(c.Argv) < 2 || c.Argv[0] != "session" || (c.Argv[1] != "run" && c.Argv[1] != "send") {
			continue
		}
		argv := strings.Join(c.Argv, " ")
		if c.Argv[1] == "send" || len(c.Argv) != 5 || c.Argv[2] != "-s" {
			t.Errorf("paneteam typed into iTerm2 other than with 'session run -s ID LINE': %q", argv)
			continue
		}
		typed = append(typed, c.Argv[3])
		m := gateLineRE.FindStringSubmatch(c.Argv[4])
		if m == nil {
			t.Errorf("paneteam typed %q into session %s: not its gate line 'exec <paneteam> pane-exec <file>'", c.Argv[4], c.Argv[3])
			continue
		}
		got, err := os.Stat(unquote(m[1]))
		if err != nil || !os.SameFile(got, exe) {
			t.Errorf("the gate line %q runs %s, not paneteam (%s)", c.Argv[4], m[1], testutil.Binary(t))
		}
		file := unquote(m[2])
		if filepath.Dir(file) != vdir || !regexp.MustCompile(`^pane-[0-9]+\.json$`).MatchString(filepath.Base(file)) {
			t.Errorf("the gate line %q names %s, not a launch file of paneteam's in %s", c.Argv[4], file, vdir)
		}
		if _, err := os.Lstat(file); err == nil {
			t.Errorf("the launch file %s is still there: the teammate's session never used it", file)
		}
	}
	return typed
}

// startITerm2Lead starts the lead in iTerm2 and checks what Claude's lead
// sees: none of iTerm2's variables (or Claude Code would drive it2 itself)
// and paneteam's tmux.
func startITerm2Lead(t *testing.T, layout string) (*iterm2Term, *shimLead) {
	t.Helper()
	term := &iterm2Term{}
	l := startNativeLead(t, term, layout)
	b, err := os.ReadFile("/proc/" + strconv.Itoa(l.PID) + "/environ")
	if err != nil {
		t.Fatalf("Claude's lead's environment: %v", err)
	}
	env := strings.Split(string(b), "\x00")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "ITERM_SESSION_ID" || k == "TERM_SESSION_ID" || k == "LC_TERMINAL" || strings.HasPrefix(k, "ITERM_") || v == "iTerm.app" {
			t.Errorf("Claude's lead sees iTerm2's %s: Claude Code would drive it2 itself", kv)
		}
	}
	vtmux := filepath.Join(l.state, "vtmux", strconv.Itoa(l.PID), "tmux") + ","
	if !slicesHasPrefix(env, "TMUX="+vtmux) {
		t.Errorf("Claude's lead's TMUX is not paneteam's tmux %s: %q", vtmux, env)
	}
	if s := term.f.Session(term.f.LeadID); s == nil {
		t.Fatal("the lead's iTerm2 session is gone")
	}
	return term, l
}

func slicesHasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// checkITerm2Teammates checks that dora and eve run in sessions split
// from the lead's as main-vertical places them, that their Claude runs
// in the session's shell (the process iTerm2 started there), and that
// nothing but paneteam's gate line was typed; it returns their sessions.
func checkITerm2Teammates(t *testing.T, l *shimLead, term *iterm2Term) (dora, eve *it2test.Session) {
	t.Helper()
	panes := nativeTeammates(t, l, term, "dora", "eve")
	team := mustConfig(t, l.Session).Name
	dora, eve = term.f.Session(panes["dora"].handle), term.f.Session(panes["eve"].handle)
	if dora == nil || eve == nil || dora.ID == eve.ID {
		t.Fatalf("dora's and eve's sessions: %+v %+v", dora, eve)
	}
	for n, s := range map[string]*it2test.Session{"dora": dora, "eve": eve} {
		p, ok := term.f.Program(s.ID)
		pids := agentProcs(n + "@" + team)
		if !ok || len(pids) != 1 || !descends(pids[0], p.PID) || !strings.HasSuffix(p.Argv[0], "bash") {
			t.Errorf("%s's Claude (processes %v) does not run in the shell of its iTerm2 session %s (%+v)", n, pids, s.ID, p)
		}
	}
	// main-vertical: dora beside the lead ('split -v', iTerm2's vertical
	// divider), eve below dora.
	if dora.SplitFrom != term.f.LeadID || !dora.Vertical {
		t.Errorf("dora's session was split from %s (vertical divider %v): want beside the lead's %s, 'split -v'", dora.SplitFrom, dora.Vertical, term.f.LeadID)
	}
	if eve.SplitFrom != dora.ID || eve.Vertical {
		t.Errorf("eve's session was split from %s (vertical divider %v): want below dora's %s", eve.SplitFrom, eve.Vertical, dora.ID)
	}
	// Each session is named after its teammate, as tmux titles the pane.
	for n, s := range map[string]*it2test.Session{"dora": dora, "eve": eve} {
		if s.Name != n {
			t.Errorf("%s's iTerm2 session is named %q; want %s", n, s.Name, n)
		}
	}
	typed := term.checkTyped(t, l)
	if strings.Join(typed, " ") != dora.ID+" "+eve.ID {
		t.Errorf("paneteam typed into sessions %v: want one gate line each into dora's %s and eve's %s", typed, dora.ID, eve.ID)
	}
	if s := term.f.Session(term.f.LeadID); s == nil || len(s.Typed) != 0 {
		t.Errorf("paneteam typed into the lead's session: %+v", s)
	}
	return dora, eve
}

// checkSessionsClosed waits until ids are gone from iTerm2's list, and
// checks paneteam closed each with 'session close -f'.
func checkSessionsClosed(t *testing.T, term *iterm2Term, ids ...string) {
	t.Helper()
	testutil.Eventually(t, 15*time.Second, "the teammates' iTerm2 sessions to close", func() bool {
		ls, err := term.f.Listed()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ls {
			for _, id := range ids {
				if s.ID == id {
					return false
				}
			}
		}
		return true
	})
	var calls []string
	for _, a := range term.f.Argvs() {
		if strings.HasPrefix(a, "session ") {
			calls = append(calls, a)
		}
	}
	argvs := strings.Join(calls, "\n")
	for _, id := range ids {
		if !strings.Contains(argvs, "session close -f -s "+id) {
			t.Errorf("paneteam did not close session %s with 'it2 session close -f': calls\n%s", id, argvs)
		}
	}
}

// TestPaneteamClaudeInITerm2: the lead runs in an iTerm2 tab. Claude's
// teammates open as iTerm2 splits laid out main-vertical, into which
// paneteam types only its fixed gate line; each runs its Claude in the
// session's shell, and they close with the lead.
func TestPaneteamClaudeInITerm2(t *testing.T) {
	term, l := startITerm2Lead(t, "main-vertical")
	l.spawn(t, "dora", "eve")
	dora, eve := checkITerm2Teammates(t, l, term)
	it2Pane := func(name string, s *it2test.Session) capturePane {
		how := "it2 session split -s " + s.SplitFrom[:8] + "…"
		if s.Vertical {
			how = "it2 session split -v -s " + s.SplitFrom[:8] + "…"
		}
		lines := []string{how, "typed: " + strings.TrimSpace(strings.Join(s.Typed, ""))}
		for _, pid := range procsWith("--agent-name", name) {
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil {
				args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
				lines = append(lines, "runs: claude "+strings.Join(args[1:], " "))
			}
		}
		return capturePane{name + ": session " + s.ID[:8] + "…", lines}
	}
	writeCapture(t, "iterm2", 50, capturePane{"claude (lead): session " + term.f.LeadID[:8] + "…", []string{"paneteam claude", "", "> start teammate dora", "> start teammate eve"}},
		it2Pane("dora", dora), it2Pane("eve", eve))
	if bad := l.unknownCalls(t); len(bad) > 0 {
		t.Errorf("the shim refused calls of Claude Code %s:\n%s", claudetest.Version(), strings.Join(bad, "\n"))
	}
	cfg := mustConfig(t, l.Session)
	exitNativeLead(t, l, term, "dora@"+cfg.Name, "eve@"+cfg.Name)
	checkSessionsClosed(t, term, dora.ID, eve.ID)
}

// TestPaneteamClaudeInITerm2ThenKilledLead: a lead killed with SIGKILL
// closes nothing; 'paneteam cleanup --orphans', run from a shell of the
// person's where it2 is installed, closes its teammates' iTerm2 sessions,
// and their Claude processes end with them.
func TestPaneteamClaudeInITerm2ThenKilledLead(t *testing.T) {
	term, l := startITerm2Lead(t, "")
	l.spawn(t, "dora", "eve")
	dora, eve := checkITerm2Teammates(t, l, term)
	killLeadThenCleanup(t, l, "iterm2", term.f.Dir, "dora", "eve")
	checkSessionsClosed(t, term, dora.ID, eve.ID)
}

// TestPaneteamClaudeInITerm2AfterAClosedSession: the person closes the
// session of the teammate the layout would split next (iTerm2 hangs up
// its Claude), then asks the lead for another teammate: its session
// opens beside a live one, the lead's spawn succeeds, and the lead's
// exit closes the sessions left.
func TestPaneteamClaudeInITerm2AfterAClosedSession(t *testing.T) {
	term, l := startITerm2Lead(t, "main-vertical")
	l.spawn(t, "dora", "eve")
	dora, eve := checkITerm2Teammates(t, l, term)
	team := mustConfig(t, l.Session).Name
	term.f.CloseSession(eve.ID)
	l.spawn(t, "frank")
	frank := term.f.Session(nativeTeammates(t, l, term, "frank")["frank"].handle)
	if frank == nil || frank.SplitFrom != dora.ID || frank.Vertical || frank.Name != "frank" {
		t.Errorf("frank's session %+v: want a split below dora's %s named frank (eve's %s is closed)", frank, dora.ID, eve.ID)
	}
	testutil.Eventually(t, 15*time.Second, "eve's Claude to end with its closed session", func() bool {
		return len(agentProcs("eve@"+team)) == 0
	})
	exitNativeLead(t, l, term, "dora@"+team, "frank@"+team)
	if frank != nil {
		checkSessionsClosed(t, term, dora.ID, frank.ID)
	}
}
