package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/panes/native/nativetest"
	"github.com/paneteam/paneteam/internal/sys/program"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestGhosttyCommandQuoting(t *testing.T) {
	tests := []struct{ exe, file, want string }{
		{"/usr/local/bin/paneteam", "/s/pane-1.json", `exec '/usr/local/bin/paneteam' pane-exec '/s/pane-1.json'`},
		{"/Users/a b/bin/paneteam", "/s/p.json", `exec '/Users/a b/bin/paneteam' pane-exec '/s/p.json'`},
		{"/it's/paneteam", "/s/$(rm -rf ~)`x`.json", `exec '/it'\''s/paneteam' pane-exec '/s/$(rm -rf ~)` + "`x`" + `.json'`},
		{`/a"b\c;d|e&f`, "/s/\nx", "exec '/a\"b\\c;d|e&f' pane-exec '/s/\nx'"},
	}
	for _, tt := range tests {
		got := ghosttyCommand(tt.exe, tt.file)
		if got != tt.want {
			t.Errorf("ghosttyCommand(%q, %q)\n got %s\nwant %s", tt.exe, tt.file, got, tt.want)
		}
		// sh must read back exactly the two paths.
		out, err := exec.Command("/bin/sh", "-c", strings.Replace(got, "exec ", "printf '%s\\0' ", 1)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if parts := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); !reflect.DeepEqual(parts, []string{tt.exe, "pane-exec", tt.file}) {
			t.Errorf("sh read %q back from %s", parts, got)
		}
	}
}

func TestGhosttyArgsKeepTextOutOfTheScript(t *testing.T) {
	evil := []string{`"; do shell script "touch /tmp/x`, "-e", "end run\n" + `tell application "Finder" to quit`, `\"`}
	args := ghosttyArgs(ghosttySplitScript("right"), evil...)
	var script []string
	i := 0
	for ; i < len(args) && args[i] == "-e"; i += 2 {
		script = append(script, args[i+1])
	}
	if !reflect.DeepEqual(script, ghosttySplitScript("right")) {
		t.Fatalf("the script lines changed: %q", script)
	}
	if !reflect.DeepEqual(args[i:], append([]string{ghosttyArgv0}, evil...)) {
		t.Errorf("the arguments after the script are %q", args[i:])
	}
	for _, l := range script {
		for _, e := range evil {
			if strings.Contains(l, e) && len(e) > 2 {
				t.Errorf("argument %q is in the script line %q", e, l)
			}
		}
	}
}

func TestGhosttyParse(t *testing.T) {
	ts, err := parseGhosttyTerminals("A-1\x1f/dev/ttys001\x1f/w d\x1eB-2\x1f\x1f\x1e\n")
	want := []ghosttyTerminal{{"A-1", "/dev/ttys001", "/w d"}, {"B-2", "", ""}}
	if err != nil || !reflect.DeepEqual(ts, want) {
		t.Errorf("got %v, %v", ts, err)
	}
	if _, err := parseGhosttyTerminals("A-1\x1fonly two\x1e"); err == nil {
		t.Error("a short record was taken")
	}
	for id, ok := range map[string]bool{"5A1F7E57-0000-4000-8000-000000000001": true, "": false, `x" & y`: false, "a b": false, "--x": true} {
		if ghosttyValidID(id) != ok {
			t.Errorf("ghosttyValidID(%q) = %v", id, !ok)
		}
	}
}

func TestGhosttyErrorsNameTheFix(t *testing.T) {
	fail := func(stderr string) error {
		return &program.Error{Call: "osascript", Stderr: stderr, Err: errors.New("exit status 1")}
	}
	tests := []struct {
		stderr string
		is     error
		says   string
	}{
		{"0:0: execution error: Not authorized to send Apple events to Ghostty. (-1743)", ErrGhosttyNotAuthorized, "Privacy & Security → Automation"},
		{"12:40: execution error: Ghostty got an error: AppleScript is disabled by the macos-applescript configuration. (-10003)", ErrGhosttyDisabled, "macos-applescript = true"},
		{"0:0: execution error: Ghostty got an error: Can’t get terminal id \"X\". (-1728)", ErrGhosttyGone, ""},
		{"0:0: execution error: Ghostty got an error: Terminal surface is no longer available. (-10000)", ErrGhosttyGone, ""},
		{"0:0: execution error: Ghostty is not running (1001)", ErrGhosttyNotRunning, "Ghostty terminal"},
		{"0:0: execution error: Ghostty got an error: Failed to create tab. (-10000)", nil, "--layout side"},
	}
	for _, tt := range tests {
		err := ghosttyError("split", fail(tt.stderr))
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: %v is not %v", tt.stderr, err, tt.is)
		}
		if !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v does not say %q", tt.stderr, err, tt.says)
		}
	}
}

func TestGhosttyRefusedOnLinuxWithoutTheStandIn(t *testing.T) {
	if _, err := New("ghostty", Env{Getenv: func(string) string { return "" }, LookPath: exec.LookPath, Exe: "/x", Dir: t.TempDir()}); err == nil {
		if isLinux() {
			t.Fatal("the Ghostty driver was made on Linux")
		}
	} else if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "paneteam attach") {
		t.Errorf("the refusal does not say where teammates go: %v", err)
	}
	if Detect(func(k string) string { return map[string]string{"TERM_PROGRAM": "ghostty"}[k] }) != "ghostty" {
		t.Error("TERM_PROGRAM=ghostty is not detected as Ghostty")
	}
}

func isLinux() bool { _, err := os.Stat("/proc/self"); return err == nil }

// ghosttyStandIn starts the Ghostty stand-in with a lead terminal in
// the test's folder and returns it with a driver for a lead there.
func ghosttyStandIn(t *testing.T, version string) (*nativetest.Terminal, Terminal, string) {
	t.Helper()
	wd, _ := os.Getwd()
	tm := nativetest.Start(t, nativetest.Ghostty, []string{"/bin/sh", "-c", "read x"}, nativetest.Options{Cwd: wd, GhosttyVersion: version})
	first, err := tm.Pane(tm.First)
	if err != nil {
		t.Fatal(err)
	}
	old := ghosttyOwnTTY
	ghosttyOwnTTY = func(context.Context) string { return strings.TrimPrefix(first.TTY, "/dev/") }
	t.Cleanup(func() { ghosttyOwnTTY = old })
	for _, kv := range tm.Env {
		if k, v, _ := strings.Cut(kv, "="); k == "GHOSTTY_FAKE_STATE" {
			t.Setenv(k, v)
		}
	}
	exe := filepath.Join(t.TempDir(), "paneteam")
	if err := os.Symlink(testutil.Binary(t), exe); err != nil {
		t.Fatal(err)
	}
	d, err := New("ghostty", Env{
		Getenv:   tm.Getenv(tm.First),
		LookPath: func(p string) (string, error) { return program.Find(p, tm.BinDir) },
		Exe:      exe, Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tm, d, nativetest.ID(tm.First)
}

func ghosttyUUID(id int) string { return fmt.Sprintf("5A1F7E57-0000-4000-8000-%012X", id) }

func TestGhosttyStandInSplitsClosesAndLists(t *testing.T) {
	for _, version := range []string{"1.3.0", "1.4.0"} {
		t.Run(version, func(t *testing.T) {
			tm, d, _ := ghosttyStandIn(t, version)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := d.Probe(ctx); err != nil {
				t.Fatalf("probe: %v", err)
			}
			out := filepath.Join(t.TempDir(), "out")
			h, err := d.Open(ctx, Open{
				Argv: weztermRecorder(out, "a b", `"; quit`, "$(x)"),
				Env:  []string{"FOO=bar baz"},
				Cwd:  "/tmp", Title: "alice",
				Place: Place{Horizontal: true},
			})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			lines := weztermWaitFile(t, out)
			if want := []string{"a b", `"; quit`, "$(x)", "/tmp", "FOO=bar baz"}; !reflect.DeepEqual(lines, want) {
				t.Errorf("the teammate's program saw %q, want %q", lines, want)
			}
			if h != Handle(ghosttyUUID(tm.First+1)) {
				t.Errorf("split returned %q", h)
			}
			p, _ := tm.Pane(tm.First + 1)
			if p.SplitFrom != tm.First || p.Direction != "right" {
				t.Errorf("the split is from %d to the %s", p.SplitFrom, p.Direction)
			}
			if named := p.Title == "alice"; named != (version != "1.3.0") {
				t.Errorf("Ghostty %s: the terminal's title is %q", version, p.Title)
			}
			// The next split beside the teammate, after focus moved to it.
			h2, err := d.Open(ctx, Open{Argv: []string{"/bin/sh", "-c", "read x"}, Place: Place{Beside: h}})
			if err != nil {
				t.Fatalf("second open: %v", err)
			}
			// Closed by hand: gone from the list.
			if err := tm.Close(tm.First + 1); err != nil {
				t.Fatal(err)
			}
			hs, err := d.List(ctx)
			if err != nil || slices.Contains(hs, h) || !slices.Contains(hs, h2) || len(hs) != 2 {
				t.Fatalf("after a close by hand List is %v, %v", hs, err)
			}
			// A split beside the closed one fails as Ghostty fails it;
			// one beside the lead still works (the lead was kept).
			if _, err := d.Open(ctx, Open{Argv: []string{"/bin/true"}, Place: Place{Beside: h}}); !errors.Is(err, ErrGhosttyGone) {
				t.Errorf("a split beside a closed terminal: %v", err)
			}
			h3, err := d.Open(ctx, Open{Argv: []string{"/bin/sh", "-c", "read x"}})
			if err != nil {
				t.Fatalf("third open: %v", err)
			}
			if p, _ := tm.Pane(tm.First + 3); p.SplitFrom != tm.First || p.Direction != "down" {
				t.Errorf("the third split is from %d to the %s, not below the lead", p.SplitFrom, p.Direction)
			}
			for _, x := range []Handle{h2, h3, h} {
				if err := d.Close(ctx, x); err != nil {
					t.Errorf("close %s: %v", x, err)
				}
			}
			if err := tm.WaitGone(ctx, tm.First+2, tm.First+3); err != nil {
				t.Error(err)
			}
			if err := d.Close(ctx, Handle(ghosttyUUID(tm.First))); err == nil {
				t.Error("the lead's terminal was closed")
			}
		})
	}
}

func TestGhosttyStandInErrors(t *testing.T) {
	tm, d, _ := ghosttyStandIn(t, "1.4.0")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	check := func(c nativetest.GhosttyConfig, is error, says string) {
		t.Helper()
		if err := tm.SetGhostty(c); err != nil {
			t.Fatal(err)
		}
		err := d.Probe(ctx)
		if err == nil || (is != nil && !errors.Is(err, is)) || !strings.Contains(err.Error(), says) {
			t.Errorf("%+v: probe said %v, want %v naming %q", c, err, is, says)
		}
		if _, err := d.List(ctx); err == nil {
			t.Errorf("%+v: List succeeded", c)
		}
	}
	check(nativetest.GhosttyConfig{Version: "1.4.0", Off: true}, ErrGhosttyDisabled, "macos-applescript = true")
	check(nativetest.GhosttyConfig{Version: "1.4.0", Deny: true}, ErrGhosttyNotAuthorized, "System Settings")
	check(nativetest.GhosttyConfig{Version: "1.2.3"}, ErrUnavailable, "1.3.0")
	tm.SetGhostty(nativetest.GhosttyConfig{Version: "1.4.0"})
	if _, err := d.Open(ctx, Open{Argv: []string{"/bin/true"}, Place: Place{Beside: "5A1F7E57-0000-4000-8000-0000000000FF"}}); !errors.Is(err, ErrGhosttyGone) {
		t.Errorf("split of a terminal Ghostty does not have: %v", err)
	}
	if err := d.Close(ctx, "5A1F7E57-0000-4000-8000-0000000000FF"); err != nil {
		t.Errorf("closing a terminal already gone: %v", err)
	}
}

func TestGhosttyStandInRefusesAFocusedTerminalElsewhere(t *testing.T) {
	tm, d, _ := ghosttyStandIn(t, "1.3.0")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The person's focus is in another folder: not the lead's for sure.
	if err := nativetest.Update(tm.State, func(s *nativetest.State) error { s.Panes[0].Cwd = "/"; return nil }); err != nil {
		t.Fatal(err)
	}
	err := d.Probe(ctx)
	if err == nil || !strings.Contains(err.Error(), "not in the lead's folder") || !strings.Contains(err.Error(), "click into") {
		t.Errorf("probe: %v", err)
	}
}
