package interop

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/shim"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// shimLead is Claude Code's lead started through 'paneteam claude', as a
// person would start it, in the session's tmux pane (inside tmux) or as
// in a plain terminal (outside).
type shimLead struct {
	*claudetest.Session
	api    *claudetest.API
	tmpDir string // TMUX_TMPDIR: where a private claude-swarm server's socket goes
	log    string // the shim's log (every call, PANETEAM_SHIM_TRACE=1)
	state  string
	// teammates are the terminal's handles of the teammates' panes
	// (nativeTeammates), which must be gone once they end.
	teammates []string
}

// startShimLead starts `paneteam claude [--layout layout] --
// --dangerously-skip-permissions` with the pinned Claude Code as the claude
// on PATH, and waits for its team.
func startShimLead(t *testing.T, layout string, inside bool) *shimLead {
	t.Helper()
	return startShimLeadIn(t, layout, inside, nil)
}

// startShimLeadIn is startShimLead with Claude's lead started in host (a
// kitty window, a WezTerm or Zellij pane) when host is not nil.
func startShimLeadIn(t *testing.T, layout string, inside bool, host claudetest.Host) *shimLead {
	t.Helper()
	return startShimLeadWith(t, layout, inside, host, nil, nil)
}

// startShimLeadWith is startShimLeadIn with more folders first on the
// person's PATH (agent CLIs) and more variables.
func startShimLeadWith(t *testing.T, layout string, inside bool, host claudetest.Host, path, env []string) *shimLead {
	t.Helper()
	return startShimLeadArgs(t, layout, inside, host, path, env, "--dangerously-skip-permissions")
}

// startShimLeadArgs is startShimLeadWith with Claude's own arguments
// (after paneteam claude's "--") in place of --dangerously-skip-permissions.
func startShimLeadArgs(t *testing.T, layout string, inside bool, host claudetest.Host, path, env []string, claudeArgs ...string) *shimLead {
	t.Helper()
	return startShimLeadFlags(t, layout, inside, host, path, env, nil, claudeArgs...)
}

// startShimLeadFlags is startShimLeadArgs with flags of paneteam
// claude's own (before "--").
func startShimLeadFlags(t *testing.T, layout string, inside bool, host claudetest.Host, path, env, flags []string, claudeArgs ...string) *shimLead {
	t.Helper()
	api := claudetest.NewAPI(t)
	bin := t.TempDir()
	if err := os.Symlink(claudetest.Binary(t), filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	l := &shimLead{api: api, tmpDir: testutil.ShortTempDir(t), state: t.TempDir()}
	l.log = filepath.Join(l.state, "claude-tmux.log")
	args := []string{"claude"}
	if layout != "" {
		args = append(args, "--layout", layout)
	}
	args = append(append(append(args, flags...), "--"), claudeArgs...)
	l.Session = claudetest.Start(t, claudetest.Options{
		API: api, Bin: testutil.Binary(t), Args: args, NotInTmux: !inside, Host: host,
		Env: append([]string{"PATH=" + strings.Join(append(append([]string{bin}, path...), os.Getenv("PATH")), ":"),
			"PANETEAM_STATE_DIR=" + l.state, "TMUX_TMPDIR=" + l.tmpDir, "PANETEAM_SHIM_TRACE=1"}, env...),
	})
	t.Cleanup(func() {
		// A private server Claude's lead made outside tmux, if a failed
		// test left it.
		if pid := l.PID; pid > 0 {
			cmd := exec.Command("tmux", "-L", "claude-swarm-"+strconv.Itoa(pid), "kill-server")
			cmd.Env = append(os.Environ(), "TMUX_TMPDIR="+l.tmpDir)
			cmd.Run()
		}
	})
	l.WaitTeam(t, wait)
	return l
}

// spawn has Claude's model call its Agent tool for each name, one after
// the other, and waits until each teammate's model got its prompt.
func (l *shimLead) spawn(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		prompt := "You are " + n + "; wait for work."
		after := l.api.LastSeq()
		l.api.On("start teammate "+n,
			claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "helper " + n, "prompt": prompt, "name": n})),
			claudetest.Text("Started "+n+"."))
		l.Submit(t, wait, "start teammate "+n)
		l.api.WaitMessages(t, wait, after, "Spawned successfully")
		lead := mustConfig(t, l.Session).LeadSessionID
		l.api.WaitRequest(t, wait, after, n+"'s model to get its prompt", func(r *claudetest.Request) bool {
			return r.SessionID() != lead && strings.Contains(r.TailText(), prompt)
		})
	}
}

// server is the tmux server the teammates' panes are on.
func (l *shimLead) server(inside bool) tmux.Server {
	if inside {
		return l.Tmux
	}
	return tmux.Server{Name: "claude-swarm-" + strconv.Itoa(l.PID), TmpDir: l.tmpDir}
}

type shimPane struct {
	id, window, agent, lead       string
	left, top, width, height, pid int
}

func listShimPanes(t *testing.T, srv tmux.Server) []shimPane {
	t.Helper()
	out, err := srv.Run(t.Context(), "list-panes", "-a", "-F",
		"#{pane_id}|#{window_id}|#{@paneteam-agent}|#{@paneteam-claude-lead}|#{pane_left}|#{pane_top}|#{pane_width}|#{pane_height}|#{pane_pid}")
	if err != nil {
		t.Fatalf("list panes of %s: %v", srv, err)
	}
	var ps []shimPane
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "|")
		if len(f) != 9 {
			continue
		}
		p := shimPane{id: f[0], window: f[1], agent: f[2], lead: f[3]}
		for i, dst := range []*int{&p.left, &p.top, &p.width, &p.height, &p.pid} {
			*dst, _ = strconv.Atoi(f[4+i])
		}
		ps = append(ps, p)
	}
	return ps
}

// teammatePanes checks that each name's pane, as config.json records it,
// carries paneteam's marks for this lead and runs that teammate's Claude.
func (l *shimLead) teammatePanes(t *testing.T, srv tmux.Server, names ...string) map[string]shimPane {
	t.Helper()
	cfg := mustConfig(t, l.Session)
	panes := listShimPanes(t, srv)
	out := map[string]shimPane{}
	for _, n := range names {
		var id string
		for _, m := range cfg.Members {
			if m.Name == n {
				id = m.TmuxPaneID
			}
		}
		var p shimPane
		for _, q := range panes {
			if q.id == id {
				p = q
			}
		}
		if p.id == "" {
			t.Fatalf("%s's pane %q (config.json) is not on %s: %+v", n, id, srv, panes)
		}
		agent := n + "@" + cfg.Name
		if p.agent != agent || !strings.HasPrefix(p.lead, strconv.Itoa(l.PID)+":") {
			t.Errorf("%s's pane %+v: want @paneteam-agent %s and @paneteam-claude-lead of pid %d", n, p, agent, l.PID)
		}
		if pids := agentProcs(agent); len(pids) != 1 || !descends(pids[0], p.pid) {
			t.Errorf("%s's Claude (processes %v) does not run in its pane (pid %d)", n, pids, p.pid)
		}
		out[n] = p
	}
	return out
}

// agentProcs lists the processes started with --agent-id agent.
func agentProcs(agent string) []int { return procsWith("--agent-id", agent) }

// procsWith lists the live processes whose command line has flag
// followed by value.
func procsWith(flag, value string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || isZombie(pid) {
			continue
		}
		args := strings.Split(string(b), "\x00")
		for i := 0; i+1 < len(args); i++ {
			if args[i] == flag && args[i+1] == value {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// descends reports whether pid is ancestor or a descendant of it.
func descends(pid, ancestor int) bool {
	for i := 0; i < 10 && pid > 1; i++ {
		if pid == ancestor {
			return true
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 2 {
			return false
		}
		pid, _ = strconv.Atoi(f[1])
	}
	return false
}

// exitLead ends Claude's lead as a person closing it would (SIGTERM) and
// checks that no teammate pane and no teammate process is left.
func (l *shimLead) exitLead(t *testing.T, srv tmux.Server, inside bool, agents ...string) {
	t.Helper()
	syscall.Kill(l.PID, syscall.SIGTERM)
	testutil.Eventually(t, 30*time.Second, "Claude's lead to exit", func() bool { return !l.Alive() })
	testutil.Eventually(t, 15*time.Second, "the teammates' panes to close", func() bool {
		_, err := srv.Run(t.Context(), "list-panes", "-a", "-F", "#{pane_id}")
		if !inside {
			return err != nil // the private server ends with its last pane
		}
		for _, p := range listShimPanes(t, srv) {
			if p.agent != "" || p.lead != "" {
				return false
			}
		}
		return true
	})
	testutil.Eventually(t, 15*time.Second, "the teammates' Claude processes to end", func() bool {
		for _, a := range agents {
			if len(agentProcs(a)) > 0 {
				return false
			}
		}
		return true
	})
}

// shimLogEntry is one call in the shim's log.
type shimLogEntry struct {
	Argv    []string `json:"argv"`
	RC      int      `json:"rc"`
	Out     string   `json:"out"`
	Unknown string   `json:"unknown"`
}

func readShimLog(t *testing.T, path string) []shimLogEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the shim's log: %v", err)
	}
	defer f.Close()
	var out []shimLogEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e shimLogEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("the shim's log: %v: %s", err, sc.Bytes())
		}
		out = append(out, e)
	}
	return out
}

// unknownCalls lists the calls the shim refused, from its log.
func (l *shimLead) unknownCalls(t *testing.T) []string {
	t.Helper()
	var bad []string
	for _, e := range readShimLog(t, l.log) {
		if e.Unknown != "" {
			bad = append(bad, strings.Join(e.Argv, " ")+": "+e.Unknown)
		}
	}
	return bad
}

// outsideContract lists the logged calls that no line of the contract in
// docs/CLAUDE-TMUX.md for the pinned release allows, and counts the calls
// per command.
func outsideContract(t *testing.T, log string) (bad []string, count map[string]int) {
	t.Helper()
	f, err := os.Open(filepath.Join(testutil.ModuleRoot(), "docs", "CLAUDE-TMUX.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	contracts, err := shim.ReadContracts(f)
	if err != nil {
		t.Fatal(err)
	}
	var c *shim.Contract
	for i := range contracts {
		if contracts[i].Release == claudetest.Version() {
			c = &contracts[i]
		}
	}
	if c == nil {
		t.Fatalf("docs/CLAUDE-TMUX.md has no contract for Claude Code %s: record one (TestClaudeTmuxCallsMatchContract) and write it down", claudetest.Version())
	}
	count = map[string]int{}
	for _, e := range readShimLog(t, log) {
		if _, ok := c.Match(e.Argv); !ok {
			bad = append(bad, (shim.Call{Argv: e.Argv}).String())
		}
		if call, err := shim.Parse(e.Argv); err == nil {
			count[call.Cmd]++
		}
	}
	return bad, count
}

// TestPaneteamClaudeInsideTmux: a person runs 'paneteam claude' in a tmux
// pane; Claude's lead spawns two teammates with its Agent tool. Each gets
// a pane beside the lead's, laid out main-vertical (the default), marked
// as paneteam's, running that teammate's Claude, whose model gets its
// prompt; the lead's exit leaves no pane and no process.
func TestPaneteamClaudeInsideTmux(t *testing.T) {
	l := startShimLead(t, "", true)
	l.spawn(t, "dora", "eve")
	srv := l.server(true)
	panes := l.teammatePanes(t, srv, "dora", "eve")
	var lead shimPane
	for _, p := range listShimPanes(t, srv) {
		if p.id == l.Pane {
			lead = p
		}
	}
	// The session's window is 200 columns: the lead keeps the left 30%.
	if lead.left != 0 || lead.width < 55 || lead.width > 62 {
		t.Errorf("the lead's pane %+v, want the left 30%% of the window", lead)
	}
	if d, e := panes["dora"], panes["eve"]; d.window != lead.window || e.window != lead.window ||
		d.left != lead.width+1 || e.left != d.left || d.top == e.top {
		t.Errorf("teammates %+v %+v are not stacked right of the lead %+v", d, e, lead)
	}
	if out := ptOK(t, l.Session, "status", "--json"); !strings.Contains(out, `"dora"`) || !strings.Contains(out, `"eve"`) {
		t.Errorf("paneteam status does not list Claude's teammates:\n%s", out)
	}
	text := func(pane string) []string {
		out, _ := srv.Run(t.Context(), "capture-pane", "-p", "-t", pane)
		return strings.Split(out, "\n")
	}
	writeCapture(t, "tmux", 30, capturePane{"claude (lead)", text(l.Pane)},
		capturePane{"dora", text(panes["dora"].id)}, capturePane{"eve", text(panes["eve"].id)})
	if bad := l.unknownCalls(t); len(bad) > 0 {
		t.Errorf("the shim refused calls of Claude Code %s:\n%s", claudetest.Version(), strings.Join(bad, "\n"))
	}
	cfg := mustConfig(t, l.Session)
	l.exitLead(t, srv, true, "dora@"+cfg.Name, "eve@"+cfg.Name)
	if bad, _ := outsideContract(t, l.log); len(bad) > 0 {
		t.Errorf("Claude Code %s made calls docs/CLAUDE-TMUX.md does not list:\n%s", claudetest.Version(), strings.Join(bad, "\n"))
	}
}

// TestPaneteamClaudeWindowsThenKilledLead: with --layout windows each
// teammate gets a window of its own, named after it, and the lead's window
// is untouched. Then the lead is killed with SIGKILL, which closes
// nothing: 'paneteam cleanup --orphans', run from the person's tmux,
// closes its teammates' panes, and their Claude processes end with them.
func TestPaneteamClaudeWindowsThenKilledLead(t *testing.T) {
	l := startShimLead(t, "windows", true)
	l.spawn(t, "dora", "eve")
	srv := l.server(true)
	panes := l.teammatePanes(t, srv, "dora", "eve")
	for _, p := range listShimPanes(t, srv) {
		if p.id == l.Pane && (p.width != 200 || p.window == panes["dora"].window || p.window == panes["eve"].window) {
			t.Errorf("the lead's pane %+v shares its window or lost width", p)
		}
	}
	if panes["dora"].window == panes["eve"].window {
		t.Errorf("dora and eve share window %s", panes["dora"].window)
	}
	for n, p := range panes {
		if wn, _ := srv.Run(t.Context(), "display-message", "-p", "-t", p.id, "#{window_name}"); wn != n {
			t.Errorf("%s's window is named %q", n, wn)
		}
	}

	cfg := mustConfig(t, l.Session)
	agents := []string{"dora@" + cfg.Name, "eve@" + cfg.Name}
	syscall.Kill(l.PID, syscall.SIGKILL)
	testutil.Eventually(t, 10*time.Second, "Claude's lead to die", func() bool { return !l.Alive() })
	time.Sleep(time.Second) // nothing closes the teammates' panes on its own
	for _, a := range agents {
		if len(agentProcs(a)) != 1 {
			t.Fatalf("%s's Claude did not outlive its killed lead: the test proves nothing", a)
		}
	}
	out, errOut, code := ptWith(t, l.Session, l.TmuxEnv(t), "cleanup", "--orphans")
	if code != 0 {
		t.Fatalf("cleanup --orphans: exit %d\n%s%s", code, out, errOut)
	}
	for _, a := range agents {
		if !strings.Contains(out, "closed pane") || !strings.Contains(out, a) {
			t.Errorf("cleanup --orphans did not report closing %s's pane:\n%s", a, out)
		}
	}
	for _, p := range listShimPanes(t, srv) {
		if p.agent != "" || p.lead != "" {
			t.Errorf("pane %+v of the killed lead is still open", p)
		}
	}
	testutil.Eventually(t, 15*time.Second, "the teammates' Claude processes to end", func() bool {
		return len(agentProcs(agents[0])) == 0 && len(agentProcs(agents[1])) == 0
	})
}

// TestPaneteamClaudeOutsideTmux: outside tmux the teammates run in a
// private server, tiled, which 'paneteam attach' finds, and which ends
// with the lead.
func TestPaneteamClaudeOutsideTmux(t *testing.T) {
	l := startShimLead(t, "", false)
	l.spawn(t, "dora", "eve")
	srv := l.server(false)
	panes := l.teammatePanes(t, srv, "dora", "eve")
	if d, e := panes["dora"], panes["eve"]; d.window != e.window {
		t.Errorf("dora %+v and eve %+v do not share the private window", d, e)
	}
	// Tiled: laying the window out tiled again changes nothing.
	before, _ := srv.Run(t.Context(), "display-message", "-p", "-t", panes["dora"].id, "#{window_layout}")
	srv.Run(t.Context(), "select-layout", "-t", panes["dora"].id, "tiled")
	if after, _ := srv.Run(t.Context(), "display-message", "-p", "-t", panes["dora"].id, "#{window_layout}"); before != after || before == "" {
		t.Errorf("the private window is not tiled: %s, tiled is %s", before, after)
	}
	if bad := l.unknownCalls(t); len(bad) > 0 {
		t.Errorf("the shim refused calls of Claude Code %s:\n%s", claudetest.Version(), strings.Join(bad, "\n"))
	}
	cfg := mustConfig(t, l.Session)
	// 'paneteam attach --team', run in another terminal (a window of the
	// session's tmux), shows the private server: its panes' titles.
	argv := append(append([]string{"env", "-i"}, l.Env()...), "PANETEAM_ROOT="+l.ConfigDir, testutil.Binary(t), "attach", "--team", cfg.Name)
	term, err := l.Tmux.Run(t.Context(), append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "--"}, argv...)...)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, "paneteam attach to show dora's and eve's panes", func() bool {
		screen := l.PaneScreen(term)
		return strings.Contains(screen, "dora") && strings.Contains(screen, "eve")
	})
	l.Tmux.Run(t.Context(), "kill-pane", "-t", term)
	l.exitLead(t, srv, false, "dora@"+cfg.Name, "eve@"+cfg.Name)
	if bad, _ := outsideContract(t, l.log); len(bad) > 0 {
		t.Errorf("Claude Code %s made calls docs/CLAUDE-TMUX.md does not list:\n%s", claudetest.Version(), strings.Join(bad, "\n"))
	}
}

// TestClaudeTmuxCallsMatchContract runs the pinned Claude Code straight
// into tmux (--teammate-mode tmux, inside a tmux pane), with paneteam as a
// logging pass-through first on its PATH that changes nothing, spawns two
// teammates and ends the lead: every call it made must be one
// docs/CLAUDE-TMUX.md lists for that release. A new release's new call is
// a named failure here, not a person's broken team.
func TestClaudeTmuxCallsMatchContract(t *testing.T) {
	api := claudetest.NewAPI(t)
	dir := t.TempDir()
	if err := os.Symlink(testutil.Binary(t), filepath.Join(dir, "tmux")); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "calls.log")
	s := claudetest.Start(t, claudetest.Options{
		API: api, Args: []string{"--dangerously-skip-permissions", "--teammate-mode", "tmux"},
		Env: []string{"PATH=" + dir + ":" + os.Getenv("PATH"), shim.EnvPassthrough + "=1", shim.EnvTrace + "=1", shim.EnvLog + "=" + log},
	})
	s.WaitTeam(t, wait)
	l := &shimLead{Session: s, api: api, log: log}
	l.spawn(t, "dora", "eve")
	cfg := mustConfig(t, s)
	l.exitLead(t, s.Tmux, true, "dora@"+cfg.Name, "eve@"+cfg.Name)
	if out := os.Getenv(EnvCallsOut); out != "" {
		// scripts/claude-release record: what this release called.
		if err := os.WriteFile(out, []byte(recordedCalls(claudetest.Version(), readShimLog(t, log))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad, count := outsideContract(t, log)
	if len(bad) > 0 {
		t.Errorf("Claude Code %s made calls docs/CLAUDE-TMUX.md does not list (update the contract, and the shim, for this release):\n%s",
			claudetest.Version(), strings.Join(bad, "\n"))
	}
	// What the contract rests on was exercised: two splits, two
	// respawns, two kills.
	for cmd, n := range map[string]int{"split-window": 2, "respawn-pane": 2, "kill-pane": 2} {
		if count[cmd] != n {
			t.Errorf("%d %s calls recorded, want %d (calls: %v)", count[cmd], cmd, n, count)
		}
	}
}

// TestPaneteamClaudeCheck: 'paneteam claude --check' runs the claude on
// PATH (the pinned release) through paneteam's tmux, in scratch folders
// with its own scripted model, and reports every step passed (its
// teammate started through paneteam's router among them) and no
// unknown call; it leaves nothing behind and never reads the person's
// config (HOME points at an empty folder the check must not write).
func TestPaneteamClaudeCheck(t *testing.T) {
	bin := t.TempDir()
	if err := os.Symlink(claudetest.Binary(t), filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	tmpdir := t.TempDir()
	cmd := exec.Command(testutil.Binary(t), "claude", "--check", "--json")
	cmd.Env = testutil.Env("PATH="+bin+":"+os.Getenv("PATH"), "HOME="+home, "TMPDIR="+tmpdir,
		"PANETEAM_STATE_DIR="+filepath.Join(home, "state"))
	out, err := cmd.Output()
	var rep struct {
		OK      bool     `json:"ok"`
		Release string   `json:"release"`
		Calls   int      `json:"calls"`
		Unknown []string `json:"unknown"`
		Outside []string `json:"outside"`
		Steps   []struct {
			What string `json:"what"`
			OK   bool   `json:"ok"`
		} `json:"steps"`
	}
	if jerr := json.Unmarshal(out, &rep); jerr != nil {
		t.Fatalf("--check --json: %v (%v)\n%s", jerr, err, out)
	}
	if err != nil || !rep.OK || rep.Release != claudetest.Version() || len(rep.Steps) != 8 || rep.Calls < 10 ||
		!strings.Contains(rep.Steps[len(rep.Steps)-2].What, "router") {
		t.Errorf("--check: %v\n%s", err, out)
	}
	for _, s := range rep.Steps {
		if !s.OK {
			t.Errorf("step failed: %s", s.What)
		}
	}
	// Nothing left in the temporary folder the check used, nothing in HOME
	// but paneteam's own state (the shim's link, the version cache).
	left, _ := os.ReadDir(tmpdir)
	for _, e := range left {
		t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
	entries, _ := os.ReadDir(home)
	for _, e := range entries {
		if e.Name() != "state" {
			t.Errorf("the check wrote %s into HOME", e.Name())
		}
	}
}
