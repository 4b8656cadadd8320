package claudestart

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/panes/shim"
	"github.com/paneteam/paneteam/internal/panes/virtualtmux"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// world is a person's environment: a tmux and a paneteam binary on disk.
func world(t *testing.T, vars map[string]string) Options {
	t.Helper()
	real := testutil.RequireTool(t, "tmux")
	exe := filepath.Join(t.TempDir(), "paneteam")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	if vars["PATH"] == "" {
		vars["PATH"] = filepath.Dir(real)
	}
	var environ []string
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	return Options{
		Getenv: func(k string) string { return vars[k] }, Environ: environ, Exe: exe,
		Claude: "/opt/claude", StateDir: t.TempDir(), Cwd: t.TempDir(),
		Probe: func(name string) error { return errors.New("remote control is off") },
	}
}

func envOf(l Start) map[string]string {
	m := map[string]string{}
	for _, kv := range l.Env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := m[k]; dup {
			m[k] = "DUPLICATE"
			continue
		}
		m[k] = v
	}
	return m
}

func TestPlanInsideTmux(t *testing.T) {
	o := world(t, map[string]string{"TMUX": "/tmp/s,1,0", "TMUX_PANE": "%3", "HOME": "/h"})
	o.Args = []string{"--model", "opus"}
	o.Layout = "windows"
	l, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(l.Argv, " ") != "claude --teammate-mode tmux --model opus" || l.Path != "/opt/claude" {
		t.Errorf("would run %s %q", l.Path, l.Argv)
	}
	e := envOf(l)
	link, err := os.Readlink(filepath.Join(e[shim.EnvDir], "tmux"))
	if err != nil || link != o.Exe {
		t.Errorf("the shim folder's tmux links to %q (%v), want %s", link, err, o.Exe)
	}
	if !strings.HasPrefix(e["PATH"], e[shim.EnvDir]+":") {
		t.Errorf("PATH %q does not start with the shim's folder", e["PATH"])
	}
	for k, want := range map[string]string{
		"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1", shim.EnvSocket: "/tmp/s", shim.EnvLayout: "windows",
		"TMUX": "/tmp/s,1,0", "TMUX_PANE": "%3", "HOME": "/h",
	} {
		if e[k] != want {
			t.Errorf("%s=%q, want %q", k, e[k], want)
		}
	}
	if l.Terminal != "tmux" || len(l.Notes) != 0 {
		t.Errorf("terminal %q notes %q", l.Terminal, l.Notes)
	}
	// Twice: the link is reused.
	if again, err := Plan(o); err != nil || envOf(again)[shim.EnvDir] != e[shim.EnvDir] {
		t.Errorf("second plan: %v %v", err, envOf(again)[shim.EnvDir])
	}
}

func TestPlanITerm2HidesITerm2(t *testing.T) {
	o := world(t, map[string]string{"TERM_PROGRAM": "iTerm.app", "ITERM_SESSION_ID": "w0t0p0:ABC", "LC_TERMINAL": "iTerm2", "TERM": "xterm"})
	l, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	e := envOf(l)
	for _, k := range []string{"TERM_PROGRAM", "ITERM_SESSION_ID", "LC_TERMINAL", shim.EnvSocket} {
		if _, ok := e[k]; ok {
			t.Errorf("Claude would see %s=%s: it would drive it2 itself", k, e[k])
		}
	}
	if e["TERM"] != "xterm" || l.Terminal != "tmux-private" {
		t.Errorf("TERM %q terminal %q", e["TERM"], l.Terminal)
	}
	if len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "iTerm2") || !strings.Contains(l.Notes[0], "paneteam attach") {
		t.Errorf("notes %q, want the visible fallback for iTerm2 and how to see the panes", l.Notes)
	}
}

func TestPlanNativeTerminalGetsPaneteamsTmux(t *testing.T) {
	o := world(t, map[string]string{"KITTY_WINDOW_ID": "3", "KITTY_LISTEN_ON": "unix:/tmp/k", "TERM": "xterm-kitty"})
	var probed []string
	o.Probe = func(name string) error { probed = append(probed, name); return nil }
	l, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	e := envOf(l)
	if l.Terminal != "kitty" || l.Virtual == nil || len(probed) != 1 || probed[0] != "kitty" {
		t.Fatalf("terminal %q virtual %+v probed %v", l.Terminal, l.Virtual, probed)
	}
	sock := filepath.Join(l.Virtual.Dir, "tmux")
	if !strings.HasPrefix(e["TMUX"], sock+",") || e["TMUX_PANE"] != "%0" || e[shim.EnvSocket] != sock ||
		e[virtualtmux.EnvTerminal] != "kitty" || e[virtualtmux.EnvState] != l.Virtual.Dir {
		t.Fatalf("env %v", e)
	}
	if l.Virtual.Env["KITTY_LISTEN_ON"] != "unix:/tmp/k" || l.Virtual.Env["TERM"] != "" {
		t.Fatalf("captured %v: want the terminal's own variables only", l.Virtual.Env)
	}
	if len(l.Notes) != 0 {
		t.Errorf("notes %q", l.Notes)
	}
	if err := l.Prepare(); err != nil {
		t.Fatal(err)
	}
	if st, err := virtualtmux.Read(l.Virtual.Dir); err != nil || st.Terminal != "kitty" || st.Lead != l.Virtual.Lead {
		t.Fatalf("state %+v %v", st, err)
	}

	// Asked for by name, a terminal that cannot be driven is an error
	// that says why, never a quiet fallback.
	o.Backend = "iterm2"
	o.Probe = func(name string) error { return errors.New("enable the Python API") }
	if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), "Python API") {
		t.Fatalf("forced iterm2: %v", err)
	}
	o.Backend = "konsole"
	var ue *UsageError
	if _, err := Plan(o); !errors.As(err, &ue) || !strings.Contains(err.Error(), "iterm2") {
		t.Fatalf("unknown backend: %v", err)
	}
}

func TestPlanSaysWhenSettingsForceInProcess(t *testing.T) {
	o := world(t, map[string]string{"TMUX": "/tmp/s,1,0", "TMUX_PANE": "%0"})
	os.MkdirAll(filepath.Join(o.Cwd, ".claude"), 0o700)
	settings := filepath.Join(o.Cwd, ".claude", "settings.json")
	os.WriteFile(settings, []byte(`{"permissions":{"blockFileToolReadsOutsideWorkingDirectories":true}}`), 0o600)
	l, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Notes) != 1 || !strings.Contains(l.Notes[0], settings) || !strings.Contains(l.Notes[0], "in-process") && !strings.Contains(l.Notes[0], "inside its own process") {
		t.Errorf("notes %q, want the setting and its file named", l.Notes)
	}
}

func TestPlanRefuses(t *testing.T) {
	o := world(t, map[string]string{})
	for name, mod := range map[string]func(*Options){
		"teammate mode given": func(o *Options) { o.Args = []string{"--teammate-mode", "in-process"} },
		"teammate mode glued": func(o *Options) { o.Args = []string{"--teammate-mode=auto"} },
		"a backend unknown":   func(o *Options) { o.Backend = "konsole" },
		"a layout unknown":    func(o *Options) { o.Layout = "spiral" },
	} {
		p := o
		mod(&p)
		if _, err := Plan(p); err == nil {
			t.Errorf("%s: planned", name)
		} else if _, ok := err.(*UsageError); !ok {
			t.Errorf("%s: %v is not a usage error", name, err)
		}
	}
	noTmux := world(t, map[string]string{"PATH": t.TempDir()})
	if _, err := Plan(noTmux); err == nil || !strings.Contains(err.Error(), "install tmux") {
		t.Errorf("without tmux: %v", err)
	}
}

// progTerm is a terminal whose driver runs sh: enough to see what a plan
// records of the programs a driver finds.
type progTerm struct{}

func (progTerm) Name() string                                             { return "progterm" }
func (progTerm) Probe(context.Context) error                              { return nil }
func (progTerm) Open(context.Context, native.Open) (native.Handle, error) { return "", nil }
func (progTerm) Close(context.Context, native.Handle) error               { return nil }
func (progTerm) List(context.Context) ([]native.Handle, error)            { return nil, nil }

func TestPlanRecordsTheTerminalsProgramsForCron(t *testing.T) {
	native.Register("progterm", func(e native.Env) (native.Terminal, error) {
		if _, err := e.LookPath("sh"); err != nil {
			return nil, err
		}
		return progTerm{}, nil
	})
	o := world(t, map[string]string{})
	o.Probe = nil // the real probe, through the driver
	o.Backend = "progterm"
	l, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := exec.LookPath("sh")
	if l.Virtual == nil || l.Virtual.Programs["sh"] != sh || !filepath.IsAbs(sh) {
		t.Fatalf("recorded programs %v, want sh at %s", l.Virtual, sh)
	}
	if err := l.Prepare(); err != nil {
		t.Fatal(err)
	}
	if st, err := virtualtmux.Read(l.Virtual.Dir); err != nil || st.Programs["sh"] != sh {
		t.Fatalf("panes.json programs %v, %v", st.Programs, err)
	}
}

// TestPlanSaysWhichGhosttyTerminalIsTheLeads: on a Ghostty whose
// terminals report no tty (1.3.0, played by the stand-in for osascript)
// the lead's terminal is the focused one, a guess the person hears
// before Claude starts, naming the terminal and its folder.
func TestPlanSaysWhichGhosttyTerminalIsTheLeads(t *testing.T) {
	wd, _ := os.Getwd()
	tm := nativetest.Start(t, nativetest.Ghostty, []string{"/bin/sh", "-c", "read x"}, nativetest.Options{Cwd: wd, GhosttyVersion: "1.3.0"})
	first, err := tm.Pane(tm.First)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, kv := range first.Env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	// The stand-in's world, which osascript (run with paneteam's own
	// environment) reads.
	t.Setenv("GHOSTTY_FAKE_STATE", vars["GHOSTTY_FAKE_STATE"])
	o := world(t, vars)
	o.Probe = nil
	o.Exe = testutil.Binary(t)
	l, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	lead := "5A1F7E57-0000-4000-8000-" + fmt.Sprintf("%012X", tm.First)
	if l.Terminal != "ghostty" || len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "Ghostty terminal "+lead+", the focused terminal") ||
		!strings.Contains(l.Notes[0], wd) || !strings.Contains(l.Notes[0], "click into") {
		t.Errorf("terminal %q notes %q: want a note naming the focused terminal %s taken for the lead's, in %s", l.Terminal, l.Notes, lead, wd)
	}
}
