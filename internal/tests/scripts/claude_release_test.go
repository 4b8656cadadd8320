// Package scripts tests the shell scripts under scripts/ as code: each is
// run as a person runs it, against a scratch copy of the files it edits.
package scripts

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/panes/shim"
	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// releaseRoot is a scratch root holding copies of the files
// scripts/claude-release reads and edits, and two recorded releases.
type releaseRoot struct {
	dir    string
	script string
}

func newReleaseRoot(t *testing.T) *releaseRoot {
	t.Helper()
	mod := testutil.ModuleRoot()
	r := &releaseRoot{dir: t.TempDir(), script: filepath.Join(mod, "scripts", "claude-release")}
	for _, f := range []string{"internal/tests/claudetest/binary.go", "internal/claudecode/claudeversion/version.go", "docs/CLAUDE-TMUX.md"} {
		b, err := os.ReadFile(filepath.Join(mod, f))
		if err != nil {
			t.Fatal(err)
		}
		r.write(t, f, string(b))
	}
	return r
}

func (r *releaseRoot) write(t *testing.T, rel, text string) {
	t.Helper()
	p := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (r *releaseRoot) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// run runs the script; it returns its output and exit code.
func (r *releaseRoot) run(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(r.script, args...)
	cmd.Env = testutil.Env(append([]string{"CLAUDE_RELEASE_ROOT=" + r.dir}, env...)...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("claude-release %v: %v\n%s", args, err, out)
	}
	return string(out), code
}

// record is a recorded release in the layout TestClaudeTmuxCallsMatchContract writes.
func record(release string, calls []string, vars, flags string) string {
	return "# tmux calls of Claude Code " + release + ", recorded by TestClaudeTmuxCallsMatchContract (scripts/claude-release record)\n" +
		strings.Join(calls, "\n") + "\n# the teammate's shell line: the variables it sets, the flags it passes\nvars: " + vars + "\nflags: " + flags + "\n"
}

var baseCalls = []string{
	"-S <socket> kill-pane -t %2",
	"-S <socket> respawn-pane -k -t %2 -- <line>",
	"-S <socket> split-window -d -t %1 -h -l 70% -P -F #{pane_id} -- cat",
	"show -gv focus-events",
}

func TestClaudeReleaseCompare(t *testing.T) {
	r := newReleaseRoot(t)
	r.write(t, "docs/claude-tmux-calls/1.0.0.txt", record("1.0.0", baseCalls, "CLAUDECODE A", "--agent-id --model"))
	r.write(t, "docs/claude-tmux-calls/1.0.1.txt", record("1.0.1", baseCalls, "CLAUDECODE A B", "--agent-id --model"))
	r.write(t, "docs/claude-tmux-calls/1.0.2.txt", record("1.0.2", append(baseCalls[1:3:3], "-S <socket> send-keys -t %2 claude Enter", "show -gv focus-events"), "CLAUDECODE A", "--agent-id --model"))
	r.write(t, "docs/claude-tmux-calls/1.0.3.txt", record("1.0.3", baseCalls, "CLAUDECODE A", "--agent-id --model --new-flag"))

	out, code := r.run(t, nil, "compare", "1.0.0", "1.0.1")
	if code != 0 || !strings.Contains(out, "1.0.1 makes the same tmux calls as 1.0.0") || !strings.Contains(out, "  + B") {
		t.Errorf("a release that only sets one more variable: exit %d\n%s", code, out)
	}
	out, code = r.run(t, nil, "compare", "1.0.0", "1.0.2")
	if code != 1 || !strings.Contains(out, "other tmux calls") || !strings.Contains(out, "  + -S <socket> send-keys -t %2 claude Enter") ||
		!strings.Contains(out, "  - -S <socket> kill-pane -t %2") {
		t.Errorf("a release with a new call and one call less: exit %d\n%s", code, out)
	}
	out, code = r.run(t, nil, "compare", "1.0.0", "1.0.3")
	if code != 1 || !strings.Contains(out, "other flags") || !strings.Contains(out, "  + --new-flag") {
		t.Errorf("a release with a new teammate flag: exit %d\n%s", code, out)
	}
	out, code = r.run(t, nil, "compare", "1.0.0", "1.0.9")
	if code != 1 || !strings.Contains(out, "record 1.0.9") {
		t.Errorf("a release never recorded: exit %d\n%s", code, out)
	}
	out, code = r.run(t, nil, "compare", "1.0", "1.0.1")
	if code != 1 || !strings.Contains(out, "'1.0' is not a Claude Code release") {
		t.Errorf("a malformed release: exit %d\n%s", code, out)
	}
	if out, code = r.run(t, nil); code != 2 || !strings.Contains(out, "scripts/claude-release record VERSION") {
		t.Errorf("no arguments: exit %d, want 2 and the usage\n%s", code, out)
	}
}

func TestClaudeReleasePin(t *testing.T) {
	r := newReleaseRoot(t)
	old := claudetest.DefaultVersion
	r.write(t, "docs/claude-tmux-calls/"+old+".txt", record(old, baseCalls, "CLAUDECODE", "--agent-id"))
	r.write(t, "docs/claude-tmux-calls/9.8.7.txt", record("9.8.7", baseCalls, "CLAUDECODE NEW", "--agent-id"))
	r.write(t, "docs/claude-tmux-calls/9.9.9.txt", record("9.9.9", baseCalls[1:], "CLAUDECODE", "--agent-id"))

	// Other calls: nothing is pinned.
	before := r.read(t, "internal/tests/claudetest/binary.go") + r.read(t, "internal/claudecode/claudeversion/version.go") + r.read(t, "docs/CLAUDE-TMUX.md")
	out, code := r.run(t, nil, "pin", "9.9.9")
	if code != 1 || !strings.Contains(out, "write its contract") {
		t.Errorf("pinning a release with other calls: exit %d\n%s", code, out)
	}
	if after := r.read(t, "internal/tests/claudetest/binary.go") + r.read(t, "internal/claudecode/claudeversion/version.go") + r.read(t, "docs/CLAUDE-TMUX.md"); after != before {
		t.Error("a refused pin changed the files")
	}

	out, code = r.run(t, nil, "pin", "9.8.7")
	if code != 0 {
		t.Fatalf("pin: exit %d\n%s", code, out)
	}
	bin := r.read(t, "internal/tests/claudetest/binary.go")
	if !strings.Contains(bin, "const DefaultVersion = \"9.8.7\"\n") || !strings.Contains(bin, "const PreviousVersion = \""+old+"\"\n") {
		t.Errorf("claudetest after pin:\n%s", bin)
	}
	if v := r.read(t, "internal/claudecode/claudeversion/version.go"); !strings.Contains(v, "\tTested = Version{9, 8, 7}\n") {
		t.Errorf("claudeversion.Tested not moved to 9.8.7")
	}
	for _, f := range []string{"internal/tests/claudetest/binary.go", "internal/claudecode/claudeversion/version.go"} {
		if _, err := parser.ParseFile(token.NewFileSet(), f, r.read(t, f), 0); err != nil {
			t.Errorf("%s after pin: %v", f, err)
		}
	}
	cs, err := shim.ReadContracts(strings.NewReader(r.read(t, "docs/CLAUDE-TMUX.md")))
	if err != nil {
		t.Fatal(err)
	}
	var got, want *shim.Contract
	for i := range cs {
		switch cs[i].Release {
		case "9.8.7":
			got = &cs[i]
		case old:
			want = &cs[i]
		}
	}
	if got == nil || want == nil || len(got.Patterns) != len(want.Patterns) || len(got.Patterns) == 0 {
		t.Fatalf("docs/CLAUDE-TMUX.md after pin: no contract for 9.8.7 sharing %s's block", old)
	}
	// Pinning again changes nothing.
	if out, code = r.run(t, nil, "pin", "9.8.7"); code != 0 || !strings.Contains(out, "already pin 9.8.7") {
		t.Errorf("pin again: exit %d\n%s", code, out)
	}
}

// TestClaudeReleaseRecord: record runs the recording test against the
// release, with the output file named, and fails when it wrote nothing.
func TestClaudeReleaseRecord(t *testing.T) {
	r := newReleaseRoot(t)
	bin := t.TempDir()
	// A go that records how it was run, and writes a record when asked to.
	testutil.WriteExecutable(t, filepath.Join(bin, "go"), []byte(`#!/bin/sh
echo "$PANETEAM_CLAUDE_VERSION $PANETEAM_REQUIRE_ALL $*" > "$(dirname "$0")/ran"
[ -n "$FAKE_WRITE" ] && echo "$FAKE_WRITE" > "$PANETEAM_CLAUDE_CALLS_OUT"
exit 0
`))
	path := "PATH=" + bin + ":" + os.Getenv("PATH")
	out, code := r.run(t, []string{path, "FAKE_WRITE=# tmux calls of Claude Code 3.2.1"}, "record", "3.2.1")
	if code != 0 {
		t.Fatalf("record: exit %d\n%s", code, out)
	}
	ran, _ := os.ReadFile(filepath.Join(bin, "ran"))
	if got := strings.TrimSpace(string(ran)); got != "3.2.1 1 test -count=1 -timeout 10m -run ^TestClaudeTmuxCallsMatchContract$ ./internal/tests/interop" {
		t.Errorf("record ran go as %q", got)
	}
	if got := r.read(t, "docs/claude-tmux-calls/3.2.1.txt"); !strings.HasPrefix(got, "# tmux calls of Claude Code 3.2.1") {
		t.Errorf("the record: %q", got)
	}
	out, code = r.run(t, []string{path}, "record", "3.2.2")
	if code != 1 || !strings.Contains(out, "wrote no calls") {
		t.Errorf("a recording that wrote nothing: exit %d\n%s", code, out)
	}
}
