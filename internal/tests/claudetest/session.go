package claudetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// DummyKey is the API key Claude Code is given; the fake API ignores it.
// Its last 20 characters are pre-approved in .claude.json so no "use this
// key?" dialog appears (docs/PROTOCOL.md §17).
const DummyKey = "sk-ant-api03-paneteam-test-key-0000000000000000000000000000AA"

// Options configure one Claude Code session.
type Options struct {
	API  *API   // the fake model (required)
	Bin  string // claude to run (default Binary(t))
	Team string // CLAUDE_INTERNAL_ASSISTANT_TEAM_NAME; "" leaves the session-<8 hex> name
	// Args replace the default command-line flags
	// (--dangerously-skip-permissions --teammate-mode in-process).
	Args []string
	Env  []string // extra KEY=VALUE pairs, after the defaults
	// NotInTmux hides TMUX and TMUX_PANE from Claude, as if it ran in a
	// plain terminal (it still runs in the private tmux server).
	NotInTmux bool
	// Host runs Claude in another terminal (a kitty window, a WezTerm
	// or Zellij pane) instead of the private tmux server's pane.
	Host Host
}

// Host is a terminal Claude can run in instead of the private tmux
// server: the program is started there as a person starting it in that
// terminal would, and the test types into it and reads its screen there.
type Host interface {
	// Start runs argv in cwd with exactly env plus the variables the
	// terminal itself gives its programs, and returns the pid of argv
	// (the program replaces whatever starts it).
	Start(t testing.TB, argv, env []string, cwd string) int
	// Type types text literally.
	Type(text string) error
	// Enter presses Enter as the program reads it (kitty: ESC [13u once
	// a program turned on kitty's keyboard protocol, as Claude does).
	Enter() error
	// Screen is the visible text.
	Screen() (string, error)
}

// Session is one interactive Claude Code running in a private tmux server.
type Session struct {
	API       *API
	Bin       string
	ConfigDir string // CLAUDE_CONFIG_DIR: teams/ and tasks/ live here
	Home      string // HOME
	Cwd       string // working folder (a project trusted in .claude.json)
	Team      string // the team name asked for ("" when left to Claude)
	Tmux      tmux.Server
	Pane      string // Claude's pane id
	PID       int    // the claude process
	Started   time.Time

	t      testing.TB
	vars   []string
	closed bool
	host   Host // where Claude runs, when not in Tmux
	// shell: Pane runs a plain shell (StartHost), not Claude Code.
	shell bool
}

// Start launches Claude Code's TUI (Options.Bin, else Binary(t)) in a
// private tmux server, with a scratch HOME and CLAUDE_CONFIG_DIR seeded so
// that no dialog appears, agent teams and the task tools on, and every
// network call pointed at opts.API. Close (registered with t.Cleanup) ends
// it. Missing tmux skips the test (fails under PANETEAM_REQUIRE_ALL=1).
func Start(t testing.TB, opts Options) *Session {
	t.Helper()
	s, srv, bin := prepare(t, opts, "claudetest.Start")
	args := opts.Args
	if args == nil {
		args = []string{"--dangerously-skip-permissions", "--teammate-mode", "in-process"}
	}
	env := s.vars
	if opts.Host != nil {
		s.host = opts.Host
		s.PID = opts.Host.Start(t, append([]string{bin}, args...), env, s.Cwd)
		s.Started = time.Now()
		t.Cleanup(s.Close)
		return s
	}
	// The pane runs a tiny sh that replaces itself with `env -i … claude`:
	// Claude sees exactly the environment above (plus TMUX and TMUX_PANE,
	// which only the pane knows), and the pane's pid is Claude's pid.
	keep := `TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" `
	if opts.NotInTmux {
		keep = ""
	}
	line := "exec env -i " + keep + tmux.ShellJoin(append(env, append([]string{bin}, args...)...))
	s.startPane(t, srv, "claude", "/bin/sh", "-c", line)
	return s
}

// startPane starts argv as the first pane of a new session of srv, in the
// session's project folder, and records that pane and its process as the
// session's; Close (registered with t.Cleanup) ends them.
func (s *Session) startPane(t testing.TB, srv tmux.Server, session string, argv ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The pane keeps its last screen if its program exits, for Screen
	// and for the report of a failed wait: remain-on-exit is on from
	// before the program starts (one that exits at once included), then
	// kept for this pane only.
	args := append([]string{"new-session", "-d", "-P", "-F", "#{pane_id} #{pane_pid}", "-s", session,
		"-x", "200", "-y", "50", "-c", s.Cwd}, argv...)
	out, err := srv.RunSeq(ctx, []string{"set-option", "-g", "remain-on-exit", "on"}, args)
	if err != nil {
		t.Fatalf("start %s in tmux: %v", argv[0], err)
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		t.Fatalf("new-session printed %q, want pane id and pid", out)
	}
	s.Pane = f[0]
	if s.PID, err = strconv.Atoi(f[1]); err != nil {
		t.Fatalf("pane pid %q: %v", f[1], err)
	}
	srv.RunSeq(ctx, []string{"set-option", "-p", "-t", s.Pane, "remain-on-exit", "on"},
		[]string{"set-option", "-g", "remain-on-exit", "off"})
	s.Started = time.Now()
	t.Cleanup(s.Close)
}

// prepare is what every session starts with: a private tmux server whose
// global environment is Claude's, as when a user starts claude in their
// own tmux (panes split from it later, such as a Claude teammate paneteam
// spawns, get the same HOME, API routing and proxies), and a scratch HOME,
// CLAUDE_CONFIG_DIR and project folder seeded so that no dialog appears.
func prepare(t testing.TB, opts Options, who string) (*Session, tmux.Server, string) {
	t.Helper()
	if opts.API == nil {
		t.Fatal(who + ": Options.API is required")
	}
	bin := opts.Bin
	if bin == "" {
		bin = Binary(t)
	}
	srv := testutil.TmuxServer(t)
	base := t.TempDir()
	s := &Session{
		API: opts.API, Bin: bin, Team: opts.Team, Tmux: srv, t: t,
		ConfigDir: filepath.Join(base, "config"),
		Home:      filepath.Join(base, "home"),
		Cwd:       filepath.Join(base, "project"),
	}
	for _, d := range []string{s.ConfigDir, s.Home, s.Cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.seed(); err != nil {
		t.Fatalf("seed Claude Code's config: %v", err)
	}
	s.vars = s.env(opts)
	// Claude's scratch HOME holds paneteam's state too, for the panes
	// split from it as for Claude (ServerEnv).
	if _, err := srv.RunSeq(context.Background(), testutil.ServerEnv(s.vars)...); err != nil {
		t.Fatalf("set Claude's environment in the test tmux server: %v", err)
	}
	return s, srv, bin
}

// seed writes what makes Claude Code start straight into its
// prompt: onboarding done, the dummy key approved, the project trusted,
// bypass-permissions mode accepted (docs/PROTOCOL.md §17).
func (s *Session) seed() error {
	state := map[string]any{
		"hasCompletedOnboarding":        true,
		"lastOnboardingVersion":         Version(),
		"bypassPermissionsModeAccepted": true,
		"customApiKeyResponses":         map[string]any{"approved": []string{DummyKey[len(DummyKey)-20:]}, "rejected": []string{}},
		"projects": map[string]any{s.Cwd: map[string]any{
			"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []string{},
		}},
		"autoUpdates": false,
	}
	b, _ := json.MarshalIndent(state, "", "  ")
	// Claude reads $CLAUDE_CONFIG_DIR/.claude.json; ~/.claude.json too for
	// older releases.
	for _, p := range []string{filepath.Join(s.ConfigDir, ".claude.json"), filepath.Join(s.Home, ".claude.json")} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return err
		}
	}
	settings := `{"skipDangerousModePermissionPrompt": true}` + "\n"
	return os.WriteFile(filepath.Join(s.ConfigDir, "settings.json"), []byte(settings), 0o600)
}

func (s *Session) env(opts Options) []string {
	url := opts.API.URL()
	path := "/usr/local/bin:/usr/bin:/bin"
	if p := os.Getenv("PATH"); p != "" {
		path = p
	}
	env := []string{
		"PATH=" + path, "HOME=" + s.Home, "USER=" + envOr("USER", "root"), "SHELL=/bin/bash",
		"TERM=xterm-256color", "LANG=C.UTF-8", "TMPDIR=" + envOr("TMPDIR", "/tmp"),
		"CLAUDE_CONFIG_DIR=" + s.ConfigDir,
		"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=" + DummyKey,
		"HTTPS_PROXY=" + url, "HTTP_PROXY=" + url, "https_proxy=" + url, "http_proxy=" + url,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "CLAUDE_CODE_ENABLE_TODO_TOOLS=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "DO_NOT_TRACK=1",
		// Claude refuses --dangerously-skip-permissions as root outside a sandbox.
		"IS_SANDBOX=1",
	}
	if opts.Team != "" {
		env = append(env, "CLAUDE_INTERNAL_ASSISTANT_TEAM_NAME="+opts.Team)
	}
	return append(env, opts.Env...)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// Env is the environment Claude was started with (KEY=VALUE, without
// TMUX and TMUX_PANE): HOME, CLAUDE_CONFIG_DIR, the fake API's URL and
// key, the refusing proxies. Give it to a paneteam that spawns Claude
// teammates, so they reach the same fake model.
func (s *Session) Env() []string { return append([]string(nil), s.vars...) }

// TmuxEnv is TMUX and TMUX_PANE as Claude's own pane has them: a command
// run with them acts as if typed in Claude's pane (a keybinding, a popup).
func (s *Session) TmuxEnv(t testing.TB) []string {
	t.Helper()
	return testutil.TmuxEnv(t, s.Tmux, s.Pane)
}

// TeamName is the session's team: Options.Team, else the one session-*
// team Claude created under ConfigDir ("" while there is none).
func (s *Session) TeamName() string {
	if s.Team != "" {
		return s.Team
	}
	ents, _ := os.ReadDir(filepath.Join(s.ConfigDir, "teams"))
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), "session-") && !strings.Contains(e.Name(), ".deleted-") {
			return e.Name()
		}
	}
	return ""
}

// TeamDir is teams/<team> under ConfigDir.
func (s *Session) TeamDir() string { return filepath.Join(s.ConfigDir, "teams", s.TeamName()) }

// TaskDir is tasks/<team> under ConfigDir.
func (s *Session) TaskDir() string { return filepath.Join(s.ConfigDir, "tasks", s.TeamName()) }

// TeamConfig is the part of Claude Code's config.json the tests
// read (docs/PROTOCOL.md §3); Raw holds the whole file.
type TeamConfig struct {
	Name          string `json:"name"`
	LeadAgentID   string `json:"leadAgentId"`
	LeadSessionID string `json:"leadSessionId"`
	LeadProcess   *struct {
		PID       int     `json:"pid"`
		PIDSpace  string  `json:"pidSpace"`
		ClaimedAt float64 `json:"claimedAt"`
		ProcStart string  `json:"procStart"`
	} `json:"leadProcess"`
	Members []struct {
		AgentID     string `json:"agentId"`
		Name        string `json:"name"`
		TmuxPaneID  string `json:"tmuxPaneId"`
		BackendType string `json:"backendType"`
		Color       string `json:"color"`
	} `json:"members"`
	Raw json.RawMessage `json:"-"`
}

// Config reads the team's config.json.
func (s *Session) Config() (TeamConfig, error) {
	var c TeamConfig
	name := s.TeamName()
	if name == "" {
		return c, fmt.Errorf("no team yet under %s", s.ConfigDir)
	}
	path := filepath.Join(s.ConfigDir, "teams", name, "config.json")
	// Claude Code rewrites config.json in place (write, then truncate):
	// a read between the two sees the old tail. Read again for up to 2 s
	// before calling the file broken.
	var b []byte
	var err error
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c = TeamConfig{}
		if b, err = os.ReadFile(path); err != nil {
			return c, err
		}
		if err = json.Unmarshal(b, &c); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return c, fmt.Errorf("parse %s's config.json: %w", name, err)
	}
	c.Raw = b
	return c, nil
}

// WaitTeam waits until Claude has written its session team's config.json
// with a leadProcess naming this session's process, and returns it.
// Starting the native binary takes a few seconds of CPU; give it a minute.
func (s *Session) WaitTeam(t testing.TB, d time.Duration) TeamConfig {
	t.Helper()
	var c TeamConfig
	var err error
	s.waitFor(t, d, "Claude Code to write its team's config.json with leadProcess", func() bool {
		c, err = s.Config()
		return err == nil && c.LeadProcess != nil && c.LeadProcess.PID == s.PID
	})
	return c
}

// Type types text into Claude's prompt literally and presses Enter.
func (s *Session) Type(t testing.TB, text string) {
	t.Helper()
	if s.host != nil {
		if err := s.host.Type(text); err != nil {
			t.Fatalf("type into Claude's terminal: %v", err)
		}
		if err := s.host.Enter(); err != nil {
			t.Fatalf("press Enter in Claude's terminal: %v", err)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Tmux.Run(ctx, "send-keys", "-t", s.Pane, "-l", text); err != nil {
		t.Fatalf("type into Claude's pane: %v", err)
	}
	// A separate Enter: typed in one go with the text, a paste-detecting
	// TUI may take it as a newline inside the prompt.
	if _, err := s.Tmux.Run(ctx, "send-keys", "-t", s.Pane, "Enter"); err != nil {
		t.Fatalf("press Enter in Claude's pane: %v", err)
	}
}

// Submit waits for Claude's prompt, types text, presses Enter, and waits
// until a main-loop request carrying it reaches the fake model: it
// returns that request. It types once: a retry could submit twice.
func (s *Session) Submit(t testing.TB, d time.Duration, text string) *Request {
	t.Helper()
	after := s.API.LastSeq()
	s.WaitScreen(t, d, "❯")
	s.Type(t, text)
	return s.API.WaitMessages(t, d, after, text)
}

// Screen is the visible text of Claude's pane.
func (s *Session) Screen(t testing.TB) string {
	t.Helper()
	if s.host != nil {
		out, err := s.host.Screen()
		if err != nil {
			t.Fatalf("read Claude's terminal: %v", err)
		}
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := s.Tmux.Run(ctx, "capture-pane", "-p", "-t", s.Pane)
	if err != nil {
		t.Fatalf("capture Claude's pane: %v", err)
	}
	return out
}

// WaitScreen waits until Claude's pane shows substr.
func (s *Session) WaitScreen(t testing.TB, d time.Duration, substr string) {
	t.Helper()
	s.waitFor(t, d, fmt.Sprintf("Claude's screen to show %q", substr), func() bool {
		return strings.Contains(s.Screen(t), substr)
	})
}

// Alive reports whether the claude process still runs (and is no zombie).
//
// 'paneteam claude' becomes Claude with an exec from whatever thread Go
// runs it on, and for that instant the process's main thread reads as a
// zombie: proc.Alive looks again before calling it dead.
func (s *Session) Alive() bool { return proc.Alive(s.PID, "") }

// waitFor waits for cond (testutil.Eventually); on timeout, or at once if
// Claude exits, it fails with the screen and the requests the fake model
// saw.
func (s *Session) waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	testutil.Eventually(t, d, "waiting for "+what, func() error {
		if cond() {
			return nil
		}
		if !s.Alive() { // waiting longer is pointless
			// What it printed last may still be on its way to the
			// pane: give tmux a moment before the screen is read.
			time.Sleep(300 * time.Millisecond)
			t.Fatalf("waiting for %s (%s): Claude exited (%s): %v", what, time.Since(start).Round(time.Millisecond), s.exitState(), sessionState{s})
		}
		return sessionState{s}
	})
}

// exitState says how Claude's process and pane ended, for a report.
func (s *Session) exitState() string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.PID))
	st := strings.TrimSpace(string(stat))
	if err != nil {
		st = err.Error()
	}
	if s.host != nil {
		return "pid " + strconv.Itoa(s.PID) + ": " + st
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pane, perr := s.Tmux.Run(ctx, "list-panes", "-a", "-F", "#{pane_id} pid=#{pane_pid} dead=#{pane_dead} status=#{pane_dead_status} cmd=#{pane_current_command}")
	if perr != nil {
		pane = perr.Error()
	}
	return fmt.Sprintf("pid %d: %s; panes: %s", s.PID, st, pane)
}

// sessionState shows Claude's screen and the requests it made, read only
// when a wait fails.
type sessionState struct{ s *Session }

func (e sessionState) Error() string {
	return fmt.Sprintf("\n--- screen ---\n%s\n--- requests ---\n%s", e.s.screenOrErr(), e.s.API.describe())
}

func (s *Session) screenOrErr() string {
	if s.host != nil {
		out, err := s.host.Screen()
		if err != nil {
			return "(screen: " + err.Error() + ")"
		}
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := s.Tmux.Run(ctx, "capture-pane", "-p", "-t", s.Pane)
	if err != nil {
		return "(capture-pane: " + err.Error() + ")"
	}
	return out
}

// Close ends Claude Code (SIGTERM to its pid, SIGKILL after 10 s) and then
// its private tmux server. Safe to call twice; registered with t.Cleanup.
func (s *Session) Close() {
	if s.closed {
		return
	}
	s.closed = true
	// An interactive shell ignores SIGTERM: StartHost's ends with the
	// server's hang-up below, rather than after SIGTERM's 10 s.
	if s.PID > 0 && s.Alive() && !s.shell {
		syscall.Kill(s.PID, syscall.SIGTERM)
		deadline := time.Now().Add(10 * time.Second)
		for s.Alive() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if s.Alive() {
			syscall.Kill(s.PID, syscall.SIGKILL)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The panes' programs (teammates) get SIGHUP from the server's end and
	// may still write their exit into the test's folders: they are waited
	// for, so the folders' removal does not race them.
	var pids []int
	if out, err := s.Tmux.Run(ctx, "list-panes", "-a", "-F", "#{pane_pid}"); err == nil {
		for _, f := range strings.Fields(out) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
	}
	// A pane's program may be a wrapper whose child (the teammate's
	// Claude Code) outlives it by a moment, still writing: the whole
	// tree is waited for, each process by its start time.
	waits := withDescendants(pids)
	s.Tmux.Run(ctx, "kill-server")
	deadline := time.Now().Add(10 * time.Second)
	for pid, start := range waits {
		for proc.Alive(pid, start) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if proc.Alive(pid, start) {
			// It ignored the hang-up: a test leaves nothing running.
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// withDescendants is pids and every process below them, each with its
// start time (a pid reused meanwhile is not waited for).
func withDescendants(pids []int) map[int]string {
	children := map[int][]int{}
	if ents, err := os.ReadDir("/proc"); err == nil {
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if parent, err := proc.Parent(pid); err == nil {
				children[parent] = append(children[parent], pid)
			}
		}
	}
	out := map[int]string{}
	for todo := pids; len(todo) > 0; {
		pid := todo[0]
		todo = todo[1:]
		if _, seen := out[pid]; seen {
			continue
		}
		start, err := proc.StartTime(pid)
		if err != nil {
			continue
		}
		out[pid] = start
		todo = append(todo, children[pid]...)
	}
	return out
}
