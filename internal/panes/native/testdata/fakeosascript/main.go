// Command osascript is a stand-in for macOS's osascript driving Ghostty,
// for paneteam's tests, built from Ghostty's own dictionary and handlers
// (ghostty-org/ghostty: macos/Ghostty.sdef and
// macos/Sources/Features/AppleScript/*.swift, as of 1.3.0 and the tip):
//
//   - terminals have stable ids (a surface's UUID, upper case, as
//     UUID.uuidString prints it); `terminals` lists every one alive, so a
//     terminal closed by hand is no longer there;
//   - `split (terminal id X) direction D with configuration C` makes a
//     terminal beside X and returns it; the new split is focused; with
//     no or an unknown direction: "Missing or unknown split direction."
//     (errAEParamMissed, -1701); the configuration's command runs
//     through /bin/sh -c, its initial working directory is where it
//     starts (else the split terminal's), and without wait after
//     command the terminal closes when its program ends;
//   - `close (terminal id X)` closes it without asking, which hangs up
//     its program;
//   - `terminal id X` naming no terminal: "Can’t get terminal id "X"."
//     (errAENoSuchObject, -1728);
//   - `tty of t` exists after 1.3.1 only (in a try block, "" before);
//     set_surface_title likewise (perform action answers false before);
//   - macos-applescript = false: element lookups answer nothing, every
//     command fails with "AppleScript is disabled by the
//     macos-applescript configuration." (errAEEventNotPermitted, -10003);
//   - a Ghostty older than 1.3.0 has no dictionary: its terms do not
//     compile (-2741);
//   - macOS's Automation refusal: "Not authorized to send Apple events to
//     Ghostty." (-1743).
//
// The script is read from -e lines; it is recognised by its statements
// (the forms the dictionary defines), with 'set V to item N of argv'
// bindings resolved from the arguments after it. An argument found
// spliced into the script's text is refused, so a driver that builds
// AppleScript from what it was given fails here.
//
// The world is $GHOSTTY_FAKE_STATE (nativetest's state file) with
// ghostty.json beside it (version, applescript, deny). Fake only:
// `osascript __start [--cwd DIR] -- PROG...` makes the state with one
// window, tab and terminal running PROG.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/sys/envlist"
)

// Config is ghostty.json: how this Ghostty is set up.
type Config struct {
	// Version is what `version` answers ("1.3.0", "1.3.1", "1.4.0").
	Version string `json:"version"`
	// Off is macos-applescript = false.
	Off bool `json:"off,omitempty"`
	// Deny is macOS refusing the Apple events (Automation off).
	Deny bool `json:"deny,omitempty"`
	// NotRunning is no Ghostty running.
	NotRunning bool `json:"not_running,omitempty"`
}

// ConfigPath is ghostty.json beside the state file.
func ConfigPath(state string) string { return filepath.Join(filepath.Dir(state), "ghostty.json") }

func main() {
	if len(os.Args) > 1 && os.Args[1] == nativetest.HostCommand {
		if err := nativetest.RunHost(os.Args[2:]); err != nil {
			os.Exit(1)
		}
		return
	}
	out, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err.Error())
		os.Exit(1)
	}
	fmt.Println(out)
}

// asError is an AppleScript error as osascript prints it.
type asError struct {
	msg string
	num int
}

func (e *asError) Error() string {
	return fmt.Sprintf("0:0: execution error: Ghostty got an error: %s (%d)", e.msg, e.num)
}

func run(args []string) (string, error) {
	state := os.Getenv("GHOSTTY_FAKE_STATE")
	if state == "" {
		return "", errors.New("fake osascript: GHOSTTY_FAKE_STATE is not set")
	}
	nativetest.LogCall(state, args)
	if len(args) > 0 && args[0] == "__start" {
		return "", start(state, args[1:])
	}
	var lines []string
	i := 0
	for ; i < len(args); i++ {
		if args[i] == "-e" && i+1 < len(args) {
			lines = append(lines, args[i+1])
			i++
			continue
		}
		if strings.HasPrefix(args[i], "-") {
			return "", fmt.Errorf("osascript: illegal option -- %s", strings.TrimPrefix(args[i], "-"))
		}
		break
	}
	if len(lines) == 0 {
		return "", errors.New("fake osascript: only scripts given with -e are understood")
	}
	argv := args[i:]
	script := strings.Join(lines, "\n")
	for _, a := range argv[min(1, len(argv)):] {
		if len(a) >= 4 && strings.Contains(script, a) {
			return "", fmt.Errorf("fake osascript: the argument %q is spliced into the script's text", a)
		}
	}
	cfg, err := loadConfig(state)
	if err != nil {
		return "", err
	}
	if cfg.Deny {
		return "", errors.New("0:0: execution error: Not authorized to send Apple events to Ghostty. (-1743)")
	}
	if cfg.NotRunning && strings.Contains(script, `application "Ghostty" is running`) {
		return "", errors.New("0:0: execution error: Ghostty is not running (1001)")
	}
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`set (\w+) to item (\d+) of argv`).FindAllStringSubmatch(script, -1) {
		n, _ := strconv.Atoi(m[2])
		if n < 1 || n > len(argv) {
			return "", fmt.Errorf("0:0: execution error: Can’t get item %d of {%d items}. (-1728)", n, len(argv))
		}
		vars[m[1]] = argv[n-1]
	}
	if strings.Contains(script, `return version of application "Ghostty"`) {
		return cfg.Version, nil
	}
	if !atLeast(cfg.Version, 1, 3, 0) && strings.Contains(script, `tell application "Ghostty"`) {
		return "", errors.New("0:0: syntax error: Expected end of line but found identifier. (-2741)")
	}
	g := &ghostty{state: state, cfg: cfg, vars: vars}
	return g.do(script)
}

type ghostty struct {
	state string
	cfg   Config
	vars  map[string]string
}

var (
	reSplit  = regexp.MustCompile(`split \(terminal id (\w+)\)(?: direction (\w+))?(?: with configuration (\w+))?`)
	reTab    = regexp.MustCompile(`new tab in (\w+) with configuration (\w+)`)
	reClose  = regexp.MustCompile(`close \(terminal id (\w+)\)`)
	reAction = regexp.MustCompile(`perform action (\w+) on \(terminal id (\w+)\)`)
	reSetCfg = regexp.MustCompile(`(?m)^(?:if (\w+) is not "" then )?set (command|initial working directory|wait after command) of (\w+) to (\w+)$`)
)

func (g *ghostty) do(script string) (string, error) {
	switch {
	case reSplit.MatchString(script):
		m := reSplit.FindStringSubmatch(script)
		return g.split(g.vars[m[1]], m[2], g.config(script))
	case reTab.MatchString(script):
		return g.newTab(g.vars["tid"], g.config(script))
	case reClose.MatchString(script):
		return "", g.close(g.vars[reClose.FindStringSubmatch(script)[1]])
	case reAction.MatchString(script):
		m := reAction.FindStringSubmatch(script)
		return g.perform(g.vars[m[2]], g.vars[m[1]])
	case strings.Contains(script, "repeat with t in terminals"):
		return g.list()
	case strings.Contains(script, "focused terminal of selected tab of front window"):
		return g.front()
	case strings.Contains(script, "new surface configuration"):
		if g.cfg.Off {
			return "", disabled
		}
		return "ok", nil
	}
	return "", errors.New("fake osascript: a script this stand-in does not know:\n" + script)
}

var disabled = &asError{"AppleScript is disabled by the macos-applescript configuration.", -10003}

// surfaceConfig is the surface configuration record a script builds.
type surfaceConfig struct {
	command, cwd string
	wait         bool
}

func (g *ghostty) config(script string) surfaceConfig {
	var c surfaceConfig
	for _, m := range reSetCfg.FindAllStringSubmatch(script, -1) {
		guard, field, val := m[1], m[2], m[4]
		v, isVar := g.vars[val]
		if !isVar {
			v = val
		}
		if guard != "" && g.vars[guard] == "" {
			continue
		}
		switch field {
		case "command":
			c.command = v
		case "initial working directory":
			c.cwd = v
		case "wait after command":
			c.wait = v == "true"
		}
	}
	return c
}

// UUID is terminal n's id.
func UUID(n int) string { return fmt.Sprintf("5A1F7E57-0000-4000-8000-%012X", n) }

func idOf(uuid string) (int, bool) {
	rest, ok := strings.CutPrefix(uuid, "5A1F7E57-0000-4000-8000-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 16, 64)
	return int(n), err == nil
}

func noSuch(uuid string) error {
	return fmt.Errorf("0:0: execution error: Ghostty got an error: Can’t get terminal id \"%s\". (-1728)", uuid)
}

// lookup is the pane terminal id uuid names; with AppleScript off
// lookups find nothing (valueInTerminalsWithUniqueID returns nil).
func (g *ghostty) lookup(s *nativetest.State, uuid string) (*nativetest.Pane, error) {
	n, ok := idOf(uuid)
	if g.cfg.Off || !ok {
		return nil, noSuch(uuid)
	}
	p, ok := s.Pane(n)
	if !ok {
		return nil, noSuch(uuid)
	}
	return p, nil
}

func (g *ghostty) split(target, dir string, c surfaceConfig) (string, error) {
	var id int
	err := nativetest.Update(g.state, func(s *nativetest.State) error {
		p, err := g.lookup(s, target)
		if err != nil {
			return err
		}
		if g.cfg.Off {
			return disabled
		}
		switch dir {
		case "right", "left", "down", "up":
		default:
			return &asError{"Missing or unknown split direction.", -1701}
		}
		cwd := c.cwd
		if cwd == "" {
			cwd = p.Cwd // window-inherit-working-directory, the default
		}
		id = add(s, nativetest.Pane{WindowID: p.WindowID, TabID: p.TabID, SplitFrom: p.ID, Direction: dir,
			Rows: max(p.Rows/2, 2), Cols: max(p.Cols/2, 2), Cwd: cwd}, c, g.cfg.Version)
		return nil
	})
	if err != nil {
		return "", err
	}
	return UUID(id), g.startPane(id)
}

func (g *ghostty) newTab(target string, c surfaceConfig) (string, error) {
	var id int
	err := nativetest.Update(g.state, func(s *nativetest.State) error {
		p, err := g.lookup(s, target)
		if err != nil {
			return &asError{"Terminal surface is no longer available.", -1728}
		}
		cwd := c.cwd
		if cwd == "" {
			cwd = p.Cwd
		}
		tab := s.NextTab
		s.NextTab++
		id = add(s, nativetest.Pane{WindowID: p.WindowID, TabID: tab, SplitFrom: -1, Rows: 48, Cols: 160, Cwd: cwd}, c, g.cfg.Version)
		s.ActiveTab = tab
		return nil
	})
	if err != nil {
		return "", err
	}
	return UUID(id), g.startPane(id)
}

// startPane starts the new terminal's program; one that cannot start
// leaves no terminal (the host removes it), as a failed surface does.
func (g *ghostty) startPane(id int) error {
	if err := nativetest.StartPane(g.state, id); err != nil {
		return &asError{"Failed to create split.", -10000}
	}
	return nil
}

// add puts a terminal running c's command into s, focused in its tab.
func add(s *nativetest.State, p nativetest.Pane, c surfaceConfig, version string) int {
	p.ID = s.NextPane
	s.NextPane++
	if c.command != "" {
		p.Argv = []string{"/bin/sh", "-c", c.command}
	} else {
		p.Argv = []string{"/bin/sh"}
	}
	p.CloseOnExit = !c.wait
	env := append([]string(nil), s.BaseEnv...)
	env = envlist.Set(env, "TERM_PROGRAM", "ghostty")
	env = envlist.Set(env, "TERM_PROGRAM_VERSION", version)
	env = envlist.Set(env, "TERM", "xterm-ghostty")
	p.Env = env
	for i := range s.Panes {
		if s.Panes[i].TabID == p.TabID {
			s.Panes[i].Focused = false
		}
	}
	p.Focused = true
	s.Panes = append(s.Panes, p)
	return p.ID
}

func (g *ghostty) close(target string) error {
	var gone nativetest.Pane
	err := nativetest.Update(g.state, func(s *nativetest.State) error {
		p, err := g.lookup(s, target)
		if err != nil {
			return err
		}
		gone = *p
		s.Remove(p.ID)
		return nil
	})
	if err == nil {
		nativetest.KillHost(gone)
	}
	return err
}

func (g *ghostty) perform(target, action string) (string, error) {
	if g.cfg.Off {
		return "", disabled
	}
	title, isTitle := strings.CutPrefix(action, "set_surface_title:")
	ok := isTitle && atLeast(g.cfg.Version, 1, 3, 2)
	err := nativetest.Update(g.state, func(s *nativetest.State) error {
		p, err := g.lookup(s, target)
		if err != nil {
			return err
		}
		if ok {
			p.Title = title
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return strconv.FormatBool(ok), nil
}

// list answers ghosttyListScript: id, tty (after 1.3.1), working
// directory of every terminal; nothing with AppleScript off.
func (g *ghostty) list() (string, error) {
	if g.cfg.Off {
		return "", nil
	}
	s, err := nativetest.Load(g.state)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range s.Panes {
		tty := ""
		if atLeast(g.cfg.Version, 1, 3, 2) {
			tty = p.TTY
		}
		b.WriteString(UUID(p.ID) + "\x1f" + tty + "\x1f" + p.Cwd + "\x1e")
	}
	return b.String(), nil
}

// front answers the front window's selected tab's focused terminal.
func (g *ghostty) front() (string, error) {
	s, err := nativetest.Load(g.state)
	if err != nil {
		return "", err
	}
	if g.cfg.Off || len(s.Panes) == 0 {
		return "", errors.New("0:0: execution error: Can’t get focused terminal of selected tab of front window. (-1728)")
	}
	for _, p := range s.Panes {
		if p.TabID == s.ActiveTab && p.Focused {
			return UUID(p.ID) + "\x1f" + p.Cwd, nil
		}
	}
	return "", errors.New("0:0: execution error: Can’t get id of missing value. (-1728)")
}

func start(state string, args []string) error {
	f, argv, err := nativetest.ParseArgs(args, []nativetest.Flag{{Names: []string{"--cwd"}, Value: true}}, true, "osascript __start [--cwd DIR] -- PROG...")
	if err != nil {
		return err
	}
	cfg, err := loadConfig(state)
	if err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	if c, ok := f["--cwd"]; ok {
		cwd = c
	}
	var id int
	err = nativetest.Update(state, func(s *nativetest.State) error {
		s.Kind = "ghostty"
		s.BaseEnv = os.Environ()
		s.NextWindow, s.NextTab, s.ActiveTab = 2, 2, 1
		id = add(s, nativetest.Pane{WindowID: 1, TabID: 1, SplitFrom: -1, Rows: 48, Cols: 160, Cwd: cwd}, surfaceConfig{}, cfg.Version)
		s.Panes[len(s.Panes)-1].Argv = argv
		return nil
	})
	if err != nil {
		return err
	}
	return nativetest.StartPane(state, id)
}

func loadConfig(state string) (Config, error) {
	c := Config{Version: "1.3.0"}
	b, err := os.ReadFile(ConfigPath(state))
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}

// atLeast compares a version "X.Y.Z[-...]" with x.y.z.
func atLeast(v string, x, y, z int) bool {
	var got [3]int
	for i, p := range strings.SplitN(v, ".", 3) {
		if end := strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' }); end >= 0 {
			p = p[:end]
		}
		got[i], _ = strconv.Atoi(p)
	}
	want := [3]int{x, y, z}
	for i := range got {
		if got[i] != want[i] {
			return got[i] > want[i]
		}
	}
	return true
}
