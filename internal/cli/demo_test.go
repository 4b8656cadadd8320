package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// runDemoBinary runs 'paneteam demo' as a user would on a fresh machine, with
// TMPDIR pointed at a folder the test can inspect afterwards.
func runDemoBinary(t *testing.T, pathDirs string, args ...string) (string, string) {
	t.Helper()
	tmp := t.TempDir()
	sockets := testutil.ShortTempDir(t)
	// A HOME of its own with no state folder named: the person's, as a
	// first run sees it, which the demo must leave as it found it.
	home := t.TempDir()
	var env []string
	for _, kv := range testutil.Env() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "TMPDIR", "TMUX_TMPDIR", "HOME", "PANETEAM_STATE_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, kv)
	}
	cmd := exec.Command(testutil.Binary(t), append([]string{"demo"}, args...)...)
	cmd.Env = append(env, "PATH="+pathDirs, "TMPDIR="+tmp, "TMUX_TMPDIR="+sockets, "HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "paneteam-demo-*"))
	if len(left) > 0 {
		t.Errorf("the demo left its root behind: %v", left)
	}
	if left, _ := os.ReadDir(home); len(left) > 0 {
		names := []string{}
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("the demo wrote into HOME: %v (its state belongs in its own temporary folder)", names)
	}
	// Nothing in tmux's socket folder either: no socket, no pane lock.
	if socks, _ := filepath.Glob(filepath.Join(sockets, "tmux-*", "*")); len(socks) > 0 {
		t.Errorf("the demo left files in the tmux socket folder: %v", socks)
	}
	return out.String(), errb.String()
}

func TestDemoWithoutTmuxRunsInProcess(t *testing.T) {
	s := ipSetup(t) // only for its PATH of paneteam, sh, cat, stty, sleep
	path := s.path
	out, _ := runDemoBinary(t, path)
	for _, want := range []string{"in-process", "Got your message", "alice: approved", "carol: approved", "Nothing is left behind"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

func TestDemoWithTmuxLeavesNoServer(t *testing.T) {
	tmuxBin := testutil.RequireTool(t, "tmux")
	bin := t.TempDir()
	os.Symlink(tmuxBin, filepath.Join(bin, "tmux"))
	s := ipSetup(t)
	path := s.path + ":" + bin
	out, _ := runDemoBinary(t, path)
	m := regexp.MustCompile(`tmux -S (\S+) attach`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the demo did not use a private tmux server:\n%s", out)
	}
	if err := exec.Command(tmuxBin, "-S", m[1], "list-sessions").Run(); err == nil {
		exec.Command(tmuxBin, "-S", m[1], "kill-server").Run()
		t.Fatalf("the demo's tmux server %s is still running", m[1])
	}
	if !strings.Contains(out, "tmux pane %") || !strings.Contains(out, "Nothing is left behind") {
		t.Fatalf("demo output:\n%s", out)
	}
}
