package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/paneteam/paneteam/internal/sys/program"
)

func init() { constructors["ghostty"] = newGhostty }

// EnvGhosttyStandIn, set to 1 in the lead's environment, lets the Ghostty
// driver run where Ghostty has no AppleScript (Linux), with whatever
// osascript is on PATH: for tests, which put the stand-in
// (testdata/fakeosascript) there. A person on Linux never sets it.
const EnvGhosttyStandIn = "PANETEAM_TEST_GHOSTTY"

// ghosttySince is the first Ghostty with an AppleScript dictionary.
var ghosttySince = [3]int{1, 3, 0}

// ghosttyCallTimeout bounds one osascript call: the first call from a
// terminal app waits on macOS's "allow to control Ghostty?" prompt.
const ghosttyCallTimeout = 30 * time.Second

// ghosttyLinux is the refusal on Linux, where Ghostty (GTK) has no
// scripting interface: where teammates go instead.
const ghosttyLinux = "Ghostty on Linux has no scripting interface (AppleScript is macOS-only), so paneteam cannot open its splits: Claude's teammates run in a private tmux server instead (see them with 'paneteam attach'), or run tmux inside Ghostty and start paneteam there"

// ghostty drives Ghostty on macOS through its AppleScript dictionary
// (ghosttyscript.go). A terminal's command is one text run through a
// shell, so a pane's program travels in a 0600 launch file and the
// terminal runs paneteam's own 'exec <paneteam> pane-exec <file>', as
// the iTerm2 driver types it.
type ghostty struct {
	bin string // osascript
	exe string // paneteam, run by the command line
	dir string // launch files and the lead's terminal id

	mu   sync.Mutex
	lead string // the lead's terminal id, once found
	// chose says how the lead's terminal was guessed (by the focus),
	// "" when Ghostty reported it by its tty.
	chose string
}

func newGhostty(env Env) (Terminal, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if runtime.GOOS != "darwin" && getenv(EnvGhosttyStandIn) != "1" {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, ghosttyLinux)
	}
	if env.LookPath == nil {
		return nil, fmt.Errorf("%w: Ghostty: no way to look up osascript", ErrUnavailable)
	}
	bin, err := env.LookPath("osascript")
	if err != nil {
		return nil, fmt.Errorf("%w: Ghostty: osascript is not on PATH (%v): it ships with macOS in /usr/bin; put /usr/bin on PATH", ErrUnavailable, err)
	}
	if env.Exe == "" || env.Dir == "" {
		return nil, errors.New("Ghostty driver: paneteam's path and a private folder are required (Env.Exe, Env.Dir)")
	}
	return &ghostty{bin: bin, exe: env.Exe, dir: env.Dir}, nil
}

func (g *ghostty) Name() string { return "ghostty" }

// run runs one script with args and returns what it printed, trimmed
// of osascript's closing newline.
func (g *ghostty) run(ctx context.Context, what string, script []string, args ...string) (string, error) {
	out, err := program.Output(ctx, program.Cmd{
		Path: g.bin, Name: "osascript", Args: ghosttyArgs(script, args...),
		DefaultTimeout: ghosttyCallTimeout,
	})
	if err != nil {
		return "", ghosttyError(what, err)
	}
	return strings.TrimSuffix(out, "\n"), nil
}

// Probe checks, in order: Ghostty's version (1.3.0 has the dictionary),
// that AppleScript is on, and that the lead's terminal can be found.
func (g *ghostty) Probe(ctx context.Context) error {
	out, err := g.run(ctx, "read its version", ghosttyVersionScript)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	v, err := parseVersion("Ghostty", "Ghostty "+strings.TrimSpace(out))
	if err != nil {
		return fmt.Errorf("%w: Ghostty's version is %q, not one paneteam can read", ErrUnavailable, out)
	}
	if !versionAtLeast(v, ghosttySince) {
		return fmt.Errorf("%w: Ghostty %s has no AppleScript (it came in 1.3.0): %s", ErrUnavailable, strings.TrimSpace(out), ghosttyFixUpdate)
	}
	if _, err := g.run(ctx, "check that AppleScript is on", ghosttyEnabledScript); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if _, err := g.leadID(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// direction is the split direction enumerator for p.
func ghosttyDirection(p Place) string {
	if p.Horizontal {
		return "right"
	}
	return "down"
}

// Open writes the launch file, splits the pane beside (or opens a tab in
// the lead's window) with a configuration running paneteam's command
// line, and returns the new terminal's id. Ghostty's split takes no
// size, so Place.Percent is not applied: Ghostty halves the split pane.
func (g *ghostty) Open(ctx context.Context, o Open) (Handle, error) {
	target := string(o.Place.Beside)
	if target == "" || o.Place.OwnTab {
		lead, err := g.leadID(ctx)
		if err != nil {
			return "", err
		}
		target = lead
	}
	if !ghosttyValidID(target) {
		return "", fmt.Errorf("pane %q to split beside is not a Ghostty terminal id", target)
	}
	file, err := WriteExecFile(g.dir, o)
	if err != nil {
		return "", fmt.Errorf("open a Ghostty pane: %w", err)
	}
	script, what := ghosttySplitScript(ghosttyDirection(o.Place)), "split terminal "+target
	if o.Place.OwnTab {
		script, what = ghosttyTabScript, "open a tab beside terminal "+target
	}
	id, err := g.run(ctx, what, script, target, ghosttyCommand(g.exe, file), o.Cwd)
	if err == nil && !ghosttyValidID(id) {
		err = fmt.Errorf("Ghostty: %s answered %q, not a terminal id", what, id)
	}
	if err != nil {
		os.Remove(file)
		return "", fmt.Errorf("open a Ghostty pane for %s: %w", o.Argv[0], err)
	}
	if o.Title != "" {
		// Cosmetic, and only in a Ghostty with set_surface_title.
		_ = g.SetTitle(ctx, Handle(id), o.Title, o.Place.OwnTab)
	}
	return Handle(id), nil
}

// SetTitle names the terminal with Ghostty's set_surface_title action
// (after 1.3.1); an older Ghostty answers false, and the terminal keeps
// the title its program sets, which is no error.
func (g *ghostty) SetTitle(ctx context.Context, h Handle, title string, tab bool) error {
	id := string(h)
	if !ghosttyValidID(id) {
		return fmt.Errorf("name Ghostty pane %q: not a Ghostty terminal id", id)
	}
	title = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, title)
	_, err := g.run(ctx, "name terminal "+id, ghosttyActionScript, id, "set_surface_title:"+title)
	return err
}

// Close closes the terminal, which hangs up its program; one already
// gone is success. The lead's own terminal is never closed.
func (g *ghostty) Close(ctx context.Context, h Handle) error {
	id := string(h)
	if !ghosttyValidID(id) {
		return fmt.Errorf("close Ghostty pane %q: not a Ghostty terminal id", id)
	}
	if lead := g.knownLead(); lead != "" && lead == id {
		return fmt.Errorf("close Ghostty pane %s: it is the lead's terminal; paneteam never closes it", id)
	}
	_, err := g.run(ctx, "close terminal "+id, ghosttyCloseScript, id)
	if errors.Is(err, ErrGhosttyGone) {
		return nil
	}
	return err
}

// List returns every terminal Ghostty has, the lead's included. With
// AppleScript turned off Ghostty lists none without an error, which
// would say every pane was closed: the check that commands work tells
// the two apart.
func (g *ghostty) List(ctx context.Context) ([]Handle, error) {
	ts, err := g.terminals(ctx)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		if _, err := g.run(ctx, "check that AppleScript is on", ghosttyEnabledScript); err != nil {
			return nil, err
		}
	}
	out := make([]Handle, 0, len(ts))
	for _, t := range ts {
		out = append(out, Handle(t.ID))
	}
	return out, nil
}

func (g *ghostty) terminals(ctx context.Context) ([]ghosttyTerminal, error) {
	out, err := g.run(ctx, "list terminals", ghosttyListScript)
	if err != nil {
		return nil, err
	}
	return parseGhosttyTerminals(out)
}

func (g *ghostty) knownLead() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lead != "" {
		return g.lead
	}
	b, _ := os.ReadFile(filepath.Join(g.dir, ghosttyLeadFile))
	id, _, _ := strings.Cut(string(b), "\n")
	return id
}
