// Package claudecheck runs the installed Claude Code against paneteam's
// tmux ('paneteam claude --check'): in a scratch config folder, with a
// scripted model on 127.0.0.1 (never the person's account), in a private
// tmux server, its lead started through 'paneteam claude' spawns one
// teammate. The check reports whether the teammate got a pane and its
// prompt, whether the lead's exit closed it, and every tmux call the
// release made that paneteam does not know or that the contract for the
// tested release (docs/CLAUDE-TMUX.md) does not list.
package claudecheck

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/docs"
	"github.com/paneteam/paneteam/internal/claudecode/claudeversion"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/panes/shim"
	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/tmux"
)

// Options of a check.
type Options struct {
	Exe     string   // the paneteam binary
	Claude  string   // the claude to check (full path)
	Release string   // its release ("" unknown)
	Environ []string // the person's environment (PATH, TERM, LANG are kept)
	Tmux    string   // the real tmux
	Timeout time.Duration
	// Progress, when set, hears each step as it starts.
	Progress func(step string)
}

// Report is what a check found.
type Report struct {
	Release  string   `json:"release"`
	Tested   string   `json:"tested"`
	OK       bool     `json:"ok"`
	Steps    []Step   `json:"steps"`
	Calls    int      `json:"calls"`
	Unknown  []string `json:"unknown"`  // calls the shim refused
	Outside  []string `json:"outside"`  // calls the contract does not list
	Kept     string   `json:"kept"`     // the scratch folder, kept when the check failed
	Contract string   `json:"contract"` // the contract's release
}

// Step is one thing the check waited for.
type Step struct {
	What string `json:"what"`
	OK   bool   `json:"ok"`
	Took string `json:"took,omitempty"`
	Why  string `json:"why,omitempty"`
}

// dummyKey is the API key Claude is given; the scripted model ignores it.
// Its last 20 characters are approved in the scratch .claude.json, so no
// dialog asks about it.
const dummyKey = "sk-ant-api03-paneteam-check-key-00000000000000000000000000AA"

// Run runs the check. An error means the check itself could not run.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	rep := &Report{Release: o.Release, Tested: claudeversion.Tested.String(), Unknown: []string{}, Outside: []string{}}
	dir, err := os.MkdirTemp("", "ptcheck")
	if err != nil {
		return nil, fmt.Errorf("scratch folder: %w", err)
	}
	keep := false
	defer func() {
		if keep {
			rep.Kept = dir
			return
		}
		// A teammate's Claude may still write its config while it ends.
		for i := 0; i < 20; i++ {
			os.RemoveAll(dir)
			if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
	}()
	c := &check{o: o, dir: dir, rep: rep}
	for _, d := range []string{c.path("config"), c.path("home"), c.path("project"), c.path("state"), c.path("tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	if err := c.seed(); err != nil {
		return nil, fmt.Errorf("seed a scratch Claude config: %w", err)
	}
	c.model, err = startModel()
	if err != nil {
		return nil, err
	}
	defer c.model.close()
	c.srv = tmux.Server{Socket: c.path("s"), Config: "/dev/null", Bin: o.Tmux}
	defer func() {
		c.stopLead()
		// Every process of the check ends with the server's panes.
		out, _ := c.srv.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_pid}")
		exec.Command(o.Tmux, "-S", c.srv.Socket, "kill-server").Run()
		for _, f := range strings.Fields(out) {
			pid, _ := strconv.Atoi(f)
			for i := 0; i < 50 && pid > 0 && syscall.Kill(pid, 0) == nil && !zombie(pid); i++ {
				time.Sleep(100 * time.Millisecond)
			}
		}
		c.endClaudes()
	}()
	ok := c.run(ctx)
	c.readLog()
	rep.OK = ok && len(rep.Unknown) == 0 && len(rep.Outside) == 0
	keep = !rep.OK
	return rep, nil
}

type check struct {
	o     Options
	dir   string
	rep   *Report
	model *model
	srv   tmux.Server
	pid   int // the lead
	pane  string
}

func (c *check) path(p string) string { return filepath.Join(c.dir, p) }

// step waits for cond (polled every 100 ms, and at each request to the
// model) and records the outcome; a reason from cond fails it at once.
func (c *check) step(ctx context.Context, what string, d time.Duration, cond func() (bool, string)) bool {
	if c.o.Progress != nil {
		c.o.Progress(what)
	}
	start := time.Now()
	deadline := start.Add(d)
	why := ""
	for {
		ok, w := cond()
		if ok {
			c.rep.Steps = append(c.rep.Steps, Step{What: what, OK: true, Took: time.Since(start).Round(10 * time.Millisecond).String()})
			return true
		}
		why = w
		if why != "" || time.Now().After(deadline) || ctx.Err() != nil {
			if why == "" {
				why = "not within " + d.String() + "; Claude's screen:\n" + lastLines(c.screen(), 15)
			}
			c.rep.Steps = append(c.rep.Steps, Step{What: what, OK: false, Why: why})
			return false
		}
		select {
		case <-ctx.Done():
		case <-c.model.wait():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *check) run(ctx context.Context) bool {
	if err := c.startLead(ctx); err != nil {
		c.rep.Steps = append(c.rep.Steps, Step{What: "start Claude through paneteam claude", Why: err.Error()})
		return false
	}
	if !c.step(ctx, "Claude's lead writes its team", c.o.Timeout, c.teamWritten) {
		return false
	}
	if !c.step(ctx, "Claude's prompt is ready", c.o.Timeout, func() (bool, string) {
		return strings.Contains(c.screen(), "❯"), ""
	}) {
		return false
	}
	// The text first, then Enter once it shows: a key that follows typed
	// text too closely is taken as part of a paste (a new line).
	c.keys("-l", leadPrompt)
	if !c.step(ctx, "the prompt takes the request", 30*time.Second, func() (bool, string) {
		return strings.Contains(c.screen(), leadPrompt), ""
	}) {
		return false
	}
	time.Sleep(300 * time.Millisecond)
	c.keys("Enter")
	last := time.Now()
	if !c.step(ctx, "its model asks for a teammate (Agent tool)", c.o.Timeout, func() (bool, string) {
		s, _, _ := c.model.state()
		if !s && time.Since(last) > 5*time.Second && c.model.requestsSeen() == 0 {
			c.keys("Enter") // not submitted yet: press it again
			last = time.Now()
		}
		return s, ""
	}) {
		return false
	}
	var pane string
	if !c.step(ctx, "the teammate gets a pane marked as paneteam's", c.o.Timeout, func() (bool, string) {
		pane = c.teammatePane()
		return pane != "", ""
	}) {
		return false
	}
	if !c.step(ctx, "the teammate's model gets its prompt", c.o.Timeout, func() (bool, string) {
		_, p, _ := c.model.state()
		return p, ""
	}) {
		return false
	}
	if !c.step(ctx, "the teammate started through paneteam's router, with a session id", 10*time.Second, c.routed) {
		return false
	}
	c.stopLead()
	return c.step(ctx, "the lead's exit closes the teammate's pane", 30*time.Second, func() (bool, string) {
		out, err := c.srv.Run(ctx, "list-panes", "-a", "-F", "#{pane_id}")
		return err == nil && !strings.Contains(" "+strings.Join(strings.Fields(out), " ")+" ", " "+pane+" "), ""
	})
}

// env is the lead's environment: the person's PATH, terminal and
// language, and everything else scratch or pointed at the scripted model.
func (c *check) env() []string {
	env := envlist.Only(c.o.Environ, "PATH", "TERM", "LANG", "LC_ALL", "USER")
	url := c.model.url
	return append(env,
		"HOME="+c.path("home"), "CLAUDE_CONFIG_DIR="+c.path("config"), "PANETEAM_STATE_DIR="+c.path("state"),
		"TMUX_TMPDIR="+c.dir, "SHELL=/bin/sh",
		"ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY="+dummyKey,
		"HTTPS_PROXY="+url, "HTTP_PROXY="+url, "https_proxy="+url, "http_proxy="+url,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "DO_NOT_TRACK=1",
		// Claude refuses --dangerously-skip-permissions as root outside
		// a sandbox; this one is a scratch folder and a scripted model.
		"IS_SANDBOX=1", shim.EnvTrace+"=1", "TMPDIR="+c.path("tmp"))
}

// startLead starts 'paneteam claude' in a private tmux server, as a
// person would in their tmux, with the claude under check first on PATH.
func (c *check) startLead(ctx context.Context) error {
	bin := c.path("bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		return err
	}
	if err := os.Symlink(c.o.Claude, filepath.Join(bin, "claude")); err != nil {
		return err
	}
	env := c.env()
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + bin + string(filepath.ListSeparator) + v
		}
	}
	line := "exec env -i TMUX=\"$TMUX\" TMUX_PANE=\"$TMUX_PANE\" " + tmux.ShellJoin(append(env,
		c.o.Exe, "claude", "--", "--dangerously-skip-permissions"))
	// The server starts with the scratch environment only: a teammate's
	// pane gets it too, never the person's own variables.
	// remain-on-exit is on before the lead's pane starts, so a claude
	// that exits at once still leaves its screen to report; it is then
	// kept for that pane only.
	cmd := exec.CommandContext(ctx, c.o.Tmux, "-S", c.srv.Socket, "-f", "/dev/null",
		"start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
		"new-session", "-d", "-P",
		"-F", "#{pane_id} #{pane_pid}", "-s", "check", "-x", "200", "-y", "50", "-c", c.path("project"), "/bin/sh", "-c", line)
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("start a private tmux server: %v: %s", err, b)
	}
	out := strings.TrimSpace(string(b))
	f := strings.Fields(out)
	if len(f) != 2 {
		return fmt.Errorf("new-session printed %q", out)
	}
	c.pane = f[0]
	c.pid, _ = strconv.Atoi(f[1])
	c.srv.RunSeq(ctx, []string{"set-option", "-p", "-t", c.pane, "remain-on-exit", "on"},
		[]string{"set-option", "-g", "remain-on-exit", "off"})
	return nil
}

func (c *check) stopLead() {
	if c.pid <= 0 {
		return
	}
	syscall.Kill(c.pid, syscall.SIGTERM)
	for i := 0; i < 100 && syscall.Kill(c.pid, 0) == nil && !zombie(c.pid); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if syscall.Kill(c.pid, 0) == nil && !zombie(c.pid) {
		syscall.Kill(c.pid, syscall.SIGKILL)
	}
	c.pid = 0
}

// endClaudes waits for every Claude process of the check (the lead and
// its teammates: their CLAUDE_CONFIG_DIR is the scratch one) to end, as
// they do once their panes close; one that lingers gets SIGTERM after 5 s
// and SIGKILL after 8 s. Only then can the scratch folder go.
func (c *check) endClaudes() {
	want := "CLAUDE_CONFIG_DIR=" + c.path("config")
	start := time.Now()
	for {
		var left []int
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() || zombie(pid) {
				continue
			}
			b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err == nil && slices.Contains(strings.Split(string(b), "\x00"), want) {
				left = append(left, pid)
			}
		}
		since := time.Since(start)
		if len(left) == 0 || since > 10*time.Second {
			return
		}
		for _, pid := range left {
			switch {
			case since > 8*time.Second:
				syscall.Kill(pid, syscall.SIGKILL)
			case since > 5*time.Second:
				syscall.Kill(pid, syscall.SIGTERM)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func zombie(pid int) bool { return proc.Zombie(pid) }

func (c *check) screen() string {
	out, err := c.srv.Run(context.Background(), "capture-pane", "-p", "-t", c.pane)
	if err != nil {
		return ""
	}
	return out
}

func (c *check) keys(keys ...string) {
	c.srv.Run(context.Background(), append([]string{"send-keys", "-t", c.pane}, keys...)...)
}

// teamWritten: Claude's lead has written its team with its own process.
func (c *check) teamWritten() (bool, string) {
	ents, _ := os.ReadDir(filepath.Join(c.path("config"), "teams"))
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(c.path("config"), "teams", e.Name(), "config.json"))
		if err != nil {
			continue
		}
		var cfg struct {
			LeadProcess *struct {
				PID int `json:"pid"`
			} `json:"leadProcess"`
		}
		if json.Unmarshal(b, &cfg) == nil && cfg.LeadProcess != nil && cfg.LeadProcess.PID == c.pid {
			return true, ""
		}
	}
	if syscall.Kill(c.pid, 0) != nil || zombie(c.pid) {
		return false, "Claude exited; its screen:\n" + c.screen()
	}
	return false, ""
}

// teammatePane is the teammate's pane, once it carries paneteam's marks.
func (c *check) teammatePane() string {
	out, err := c.srv.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_id}|#{"+tmux.AgentOption+"}|#{"+tmux.ClaudeLeadOption+"}")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Split(l, "|")
		if len(f) == 3 && strings.HasPrefix(f[1], probeName+"@") && f[2] != "" {
			return f[0]
		}
	}
	return ""
}

// readLog reads the shim's log: the calls it refused, and the calls no
// line of the contract for the tested release allows.
func (c *check) readLog() {
	contracts, err := shim.ReadContracts(strings.NewReader(docs.ClaudeTmux))
	var contract *shim.Contract
	for i := range contracts {
		if contracts[i].Release == claudeversion.Tested.String() {
			contract = &contracts[i]
		}
	}
	if err != nil || contract == nil {
		c.rep.Outside = append(c.rep.Outside, fmt.Sprintf("(no contract for %s in paneteam's docs: %v)", claudeversion.Tested, err))
		return
	}
	c.rep.Contract = contract.Release
	f, err := os.Open(filepath.Join(c.path("state"), "claude-tmux.log"))
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		c.rep.Outside = append(c.rep.Outside, "(the shim's log: "+err.Error()+")")
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := map[string]bool{}
	for sc.Scan() {
		var e struct {
			Argv    []string `json:"argv"`
			Unknown string   `json:"unknown"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		c.rep.Calls++
		shown := (shim.Call{Argv: e.Argv}).String()
		if e.Unknown != "" && !seen["u"+shown] {
			seen["u"+shown] = true
			c.rep.Unknown = append(c.rep.Unknown, shown+" ("+e.Unknown+")")
		}
		if _, ok := contract.Match(e.Argv); !ok && !seen["o"+shown] {
			seen["o"+shown] = true
			c.rep.Outside = append(c.rep.Outside, shown)
		}
	}
}

// seed writes what makes Claude Code start straight into its prompt in
// the scratch folders: onboarding done, the dummy key approved, the
// project trusted, bypass-permissions mode accepted.
func (c *check) seed() error {
	state := map[string]any{
		"hasCompletedOnboarding":        true,
		"lastOnboardingVersion":         c.o.Release,
		"bypassPermissionsModeAccepted": true,
		"customApiKeyResponses":         map[string]any{"approved": []string{dummyKey[len(dummyKey)-20:]}, "rejected": []string{}},
		"projects": map[string]any{c.path("project"): map[string]any{
			"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true, "allowedTools": []string{}}},
		"autoUpdates": false,
	}
	b, _ := json.MarshalIndent(state, "", "  ")
	for _, p := range []string{filepath.Join(c.path("config"), ".claude.json"), filepath.Join(c.path("home"), ".claude.json")} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(c.path("config"), "settings.json"), []byte(`{"skipDangerousModePermissionPrompt": true}`+"\n"), 0o600)
}

// lastLines is the end of a screen: its last n lines that are not blank.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimRight(l, " "))
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// routed reports whether the teammate's launch went through paneteam's
// teammate router (CLAUDE_CODE_TEAMMATE_COMMAND): the router records
// every launch, a Claude one with the session id it gave it.
func (c *check) routed() (bool, string) {
	files, _ := filepath.Glob(filepath.Join(launches.Folder(c.path("state")), "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var r launches.Record
		if json.Unmarshal(b, &r) == nil && r.Via == launches.ViaRouter && r.CLI == "claude" && r.SessionID != "" {
			return true, ""
		}
	}
	return false, "no launch of the teammate's went through the router: Claude Code did not run CLAUDE_CODE_TEAMMATE_COMMAND"
}
