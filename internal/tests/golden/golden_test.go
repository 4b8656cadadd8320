// Package golden pins the bytes of every command's --json output: the
// paneteam binary is run, as a script would run it, on a deterministic
// scenario in a private root, and what it prints is compared with
// testdata/<name>.json. Scripts parse these outputs, so a renamed field,
// a reordered key or a changed indent breaks them; this test is the net
// that catches such a change before a user does.
//
// Regenerate the files after an intended change with
//
//	go test ./internal/tests/golden -update
//	PANETEAM_UPDATE_GOLDEN=1 go test ./internal/tests/golden
//
// and read the diff of testdata/ before committing it.
package golden

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json with what the commands print now")

func updating() bool { return *update || os.Getenv("PANETEAM_UPDATE_GOLDEN") == "1" }

// session runs the paneteam binary with one private environment: a team
// root, a home, a PATH and a working folder, all under one temp folder,
// so nothing reaches the caller's ~/.claude, tmux server or config.
type session struct {
	t    *testing.T
	bin  string   // the paneteam binary
	dir  string   // the working folder of every run
	vars []string // the environment of every run
	norm *normaliser
}

// newSession makes the private folders under tmp and the environment
// that points paneteam at them. path is the whole PATH the runs see.
func newSession(t *testing.T, tmp, path string, extra ...string) *session {
	t.Helper()
	for _, d := range []string{"root", "home", "work", "tmux"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	var vars []string
	for _, kv := range testutil.Env() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		// Where paneteam looks for config, state and sockets: each is
		// pinned below, so the caller's values must not leak in.
		case "PATH", "HOME", "PANETEAM_STATE_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
			"TMUX_TMPDIR", "PANETEAM_USER", "PANETEAM_TMUX_CONFIG", "PANETEAM_LAYOUT", "NO_COLOR":
			continue
		}
		vars = append(vars, kv)
	}
	home := filepath.Join(tmp, "home")
	vars = append(vars,
		"PATH="+path,
		"PANETEAM_ROOT="+filepath.Join(tmp, "root"),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"TMUX_TMPDIR="+filepath.Join(tmp, "tmux"),
	)
	bin := testutil.Binary(t)
	return &session{
		t:    t,
		bin:  bin,
		dir:  filepath.Join(tmp, "work"),
		vars: append(vars, extra...),
		norm: newNormaliser(tmp, filepath.Dir(bin)),
	}
}

// root is the team root of the session.
func (s *session) root() string { return filepath.Join(s.norm.tmp, "root") }

// run runs paneteam with args and returns stdout, stderr and the exit code.
func (s *session) run(stdin string, args ...string) (string, string, int) {
	s.t.Helper()
	cmd := exec.Command(s.bin, args...)
	cmd.Dir, cmd.Env = s.dir, s.vars
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("paneteam %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

// must runs paneteam for its side effect and fails the test unless it
// exits 0.
func (s *session) must(args ...string) string {
	s.t.Helper()
	out, errs, code := s.run("", args...)
	if code != 0 {
		s.t.Fatalf("paneteam %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// golden runs paneteam with args, expects exit code want, and compares
// its stdout with testdata/<name>.json.
func (s *session) golden(name string, want int, args ...string) {
	s.t.Helper()
	s.goldenInput(name, want, "", args...)
}

// goldenInput is golden with stdin.
func (s *session) goldenInput(name string, want int, stdin string, args ...string) {
	s.t.Helper()
	out, errs, code := s.run(stdin, args...)
	if code != want {
		s.t.Errorf("paneteam %s: exit %d, want %d\nstdout:\n%sstderr:\n%s", strings.Join(args, " "), code, want, out, errs)
		return
	}
	s.check(name, "paneteam "+strings.Join(args, " "), out)
}

// check compares out, normalised, with testdata/<name>.json (or writes
// it when updating).
func (s *session) check(name, what, out string) {
	s.t.Helper()
	got := s.norm.apply(out)
	path := filepath.Join("testdata", name+".json")
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			s.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		s.t.Errorf("%s: no golden file %s (run with -update to write it): %v", what, path, err)
		return
	}
	if got != string(want) {
		s.t.Errorf("%s: --json output changed from %s (- golden, + now; rerun with -update only if the change is meant):\n%s",
			what, path, lineDiff(string(want), got))
	}
}
