package nativetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/paneteam/paneteam/internal/sys/envlist"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// The fakes, by the name of the terminal they stand for.
const (
	WezTerm = "wezterm"
	Zellij  = "zellij"
	// Ghostty is a stand-in for osascript driving Ghostty on macOS
	// (testdata/fakeosascript).
	Ghostty = "ghostty"
)

// FakeBin builds the fake for kind (WezTerm or Zellij) once per test
// binary and returns its path; the file is named like the real program
// ("wezterm", "zellij"), alone in its folder, so the folder can go first
// on a PATH.
func FakeBin(t testing.TB, kind string) string {
	t.Helper()
	if kind == Ghostty {
		return testutil.Tool(t, "osascript", "./internal/panes/native/testdata/fakeosascript")
	}
	return testutil.Tool(t, kind, "./internal/panes/native/testdata/fake"+kind)
}

// Terminal is one running fake terminal.
type Terminal struct {
	Kind string
	// Bin is the fake CLI (named wezterm or zellij); BinDir its folder.
	Bin, BinDir string
	// State is the state file; Dir its folder.
	State, Dir string
	// Env is what a CLI call needs to reach this terminal from outside
	// it: os.Environ plus the terminal's address (WEZTERM_UNIX_SOCKET;
	// ZELLIJ_SOCKET_DIR, with --session NAME on the command line).
	Env []string
	// First is the pane the terminal started with.
	First int
}

// Options for starting a fake terminal.
type Options struct {
	// Cwd is the first pane's working folder ("": the test's).
	Cwd string
	// Env is added to the terminal's own environment, which every pane
	// inherits.
	Env []string
	// Session names a Zellij session ("": "paneteam-test").
	Session string
	// GhosttyVersion is the Ghostty release the stand-in plays ("":
	// 1.3.0, whose terminals report no tty).
	GhosttyVersion string
}

// GhosttyConfig is how the Ghostty stand-in is set up (its ghostty.json).
type GhosttyConfig struct {
	// Version is the release ("1.3.0"; after 1.3.1 terminals report
	// their tty and set_surface_title exists).
	Version string `json:"version"`
	// Off is macos-applescript = false in Ghostty's configuration.
	Off bool `json:"off,omitempty"`
	// Deny is macOS's Automation permission refused.
	Deny bool `json:"deny,omitempty"`
	// NotRunning is Ghostty quit.
	NotRunning bool `json:"not_running,omitempty"`
}

// SetGhostty changes the Ghostty stand-in's setup.
func (tm *Terminal) SetGhostty(c GhosttyConfig) error {
	if c.Version == "" {
		c.Version = "1.3.0"
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(tm.Dir, "ghostty.json"), b, 0o600)
}

// Start starts a fake terminal of kind with a first pane running argv, as
// if a person opened the terminal and ran argv there. The first pane has
// the variables the real terminal exports (WezTerm: WEZTERM_PANE,
// WEZTERM_UNIX_SOCKET, TERM_PROGRAM=WezTerm; Zellij: ZELLIJ=0,
// ZELLIJ_SESSION_NAME, ZELLIJ_PANE_ID), and the fake CLI first on PATH.
// Every pane's program is ended when the test ends.
func Start(t testing.TB, kind string, argv []string, o Options) *Terminal {
	t.Helper()
	bin := FakeBin(t, kind)
	dir, err := os.MkdirTemp("", "ptf")
	if err != nil {
		t.Fatal(err)
	}
	tm := &Terminal{Kind: kind, Bin: bin, BinDir: filepath.Dir(bin), Dir: dir, State: filepath.Join(dir, "state.json")}
	base := append(cleanEnviron(), o.Env...)
	base = envlist.Set(base, "PATH", tm.BinDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var args []string
	switch kind {
	case WezTerm:
		base = envlist.Set(base, "WEZTERM_UNIX_SOCKET", filepath.Join(dir, "sock"))
		args = []string{"start"}
	case Zellij:
		if o.Session == "" {
			o.Session = "paneteam-test"
		}
		base = envlist.Set(base, "ZELLIJ_SOCKET_DIR", dir)
		tm.State = filepath.Join(dir, o.Session, "state.json")
		args = []string{"--session", o.Session, "start"}
	case Ghostty:
		// The driver runs on Linux only with the stand-in.
		base = envlist.Set(base, "GHOSTTY_FAKE_STATE", tm.State)
		base = envlist.Set(base, "PANETEAM_TEST_GHOSTTY", "1")
		if o.GhosttyVersion != "" {
			if err := tm.SetGhostty(GhosttyConfig{Version: o.GhosttyVersion}); err != nil {
				t.Fatal(err)
			}
		}
		args = []string{"__start"}
	default:
		t.Fatalf("no fake terminal named %q", kind)
	}
	tm.Env = base
	if o.Cwd != "" {
		args = append(args, "--cwd", o.Cwd)
	}
	t.Cleanup(func() { tm.Stop(); os.RemoveAll(dir) })
	cmd := exec.Command(bin, append(append(args, "--"), argv...)...)
	cmd.Env = base
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("start the fake %s: %v\n%s", kind, err, out)
	}
	st, err := Load(tm.State)
	if err != nil || len(st.Panes) == 0 {
		t.Fatalf("fake %s started without a pane: %v", kind, err)
	}
	tm.First = st.Panes[0].ID
	return tm
}

// cleanEnviron is os.Environ without the variables of a terminal the
// test itself may run in.
func cleanEnviron() []string {
	return envlist.Filter(os.Environ(), func(k string) bool {
		switch {
		case k == "TMUX", k == "TMUX_PANE", k == "TERM_PROGRAM", k == "ITERM_SESSION_ID",
			strings.HasPrefix(k, "WEZTERM_"), strings.HasPrefix(k, "ZELLIJ"), strings.HasPrefix(k, "KITTY_"):
			return false
		}
		return true
	})
}

// Getenv reads a variable of pane id's environment ("" when unset):
// what a driver's Env.Getenv sees when the lead runs in that pane.
func (tm *Terminal) Getenv(id int) func(string) string {
	return func(key string) string {
		p, err := tm.Pane(id)
		if err != nil {
			return ""
		}
		for _, kv := range p.Env {
			if v, ok := strings.CutPrefix(kv, key+"="); ok {
				return v
			}
		}
		return ""
	}
}

// Panes lists the terminal's panes with their placement and programs.
func (tm *Terminal) Panes() ([]Pane, error) {
	st, err := Load(tm.State)
	return st.Panes, err
}

// Pane returns one pane.
func (tm *Terminal) Pane(id int) (Pane, error) {
	st, err := Load(tm.State)
	if err != nil {
		return Pane{}, err
	}
	p, ok := st.Pane(id)
	if !ok {
		return Pane{}, fmt.Errorf("pane %d is gone", id)
	}
	return *p, nil
}

// Screen is what pane id has printed so far, without terminal escape
// sequences. It stays readable after the pane closed.
func (tm *Terminal) Screen(id int) (string, error) {
	b, err := os.ReadFile(ScreenPath(tm.State, id))
	return ansi.Strip(string(b)), err
}

// RawScreen is what pane id has printed so far, escapes included.
func (tm *Terminal) RawScreen(id int) ([]byte, error) {
	return os.ReadFile(ScreenPath(tm.State, id))
}

// Type sends text to pane id's program as typed input (bytes as given:
// "\r" is Enter).
func (tm *Terminal) Type(id int, text string) error {
	f, err := os.OpenFile(InputPath(tm.State, id), os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("type into pane %d: %w", id, err)
	}
	defer f.Close()
	_, err = f.WriteString(text)
	return err
}

// WaitScreen waits until pane id's screen holds want and returns it.
func (tm *Terminal) WaitScreen(ctx context.Context, id int, want string) (string, error) {
	for {
		s, _ := tm.Screen(id)
		if strings.Contains(s, want) {
			return s, nil
		}
		select {
		case <-ctx.Done():
			return s, fmt.Errorf("pane %d never showed %q: %w; it shows:\n%s", id, want, ctx.Err(), s)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// WaitGone waits until the panes ids are closed.
func (tm *Terminal) WaitGone(ctx context.Context, ids ...int) error {
	for {
		st, err := Load(tm.State)
		if err != nil {
			return err
		}
		var left []int
		for _, id := range ids {
			if _, ok := st.Pane(id); ok {
				left = append(left, id)
			}
		}
		if len(left) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("panes %v still open: %w", left, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Calls returns the arguments of every call of the fake CLI, in order.
func (tm *Terminal) Calls() ([][]string, error) {
	f, err := os.Open(CallsPath(tm.State))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c struct{ Args []string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, err
		}
		out = append(out, c.Args)
	}
	return out, sc.Err()
}

// Close closes pane id as a person closing it by hand would: the pane
// goes and its program is hung up.
func (tm *Terminal) Close(id int) error {
	var gone Pane
	err := Update(tm.State, func(s *State) error {
		p, ok := s.Pane(id)
		if !ok {
			return fmt.Errorf("pane %d is gone", id)
		}
		gone = *p
		s.Remove(id)
		return nil
	})
	if err == nil {
		KillHost(gone)
	}
	return err
}

// Stop ends every pane's program (hang-up, then kill) and waits briefly
// for their hosts to go.
func (tm *Terminal) Stop() {
	st, err := Load(tm.State)
	if err != nil {
		return
	}
	for _, p := range st.Panes {
		if p.Exited {
			continue
		}
		KillHost(p)
	}
	deadline := time.Now().Add(3 * time.Second)
	for _, p := range st.Panes {
		for p.HostPID > 0 && proc.Alive(p.HostPID, "") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// ID formats a pane id as the drivers' handles spell it.
func ID(id int) string { return strconv.Itoa(id) }
