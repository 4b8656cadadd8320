package native

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// execFileProgram is a pane program that writes what it was started with
// to $OUT: its pid, working folder, $PT_VAR, then each argument on a line.
// The arguments are data to it: a shell reading them would run them.
var execFileProgram = []string{"/bin/sh", "-c",
	`{ echo "$$"; pwd; printf '%s\n' "$PT_VAR"; printf '%s\n' "$@"; } > "$OUT"`, "sh"}

// execFileHostile are arguments a shell would act on.
var execFileHostile = []string{"$(touch PWNED)", ";", "touch PWNED2", "a b", "it's", `back\slash`, "`touch PWNED3`"}

func execFileOpen(t *testing.T, out string) (Open, string) {
	t.Helper()
	cwd := t.TempDir()
	return Open{
		Argv: append(append([]string{}, execFileProgram...), execFileHostile...),
		Env:  []string{"OUT=" + out, "PT_VAR=x y $(touch PWNED4)"},
		Cwd:  cwd,
	}, cwd
}

// execFileCheck reads what execFileProgram wrote and checks that it ran
// as pid, in cwd, with the environment and every argument verbatim, and
// that nothing of the arguments was run.
func execFileCheck(t *testing.T, out, cwd string, pid int) {
	t.Helper()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the pane's program left no output: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	want := append([]string{"", cwd, "x y $(touch PWNED4)"}, execFileHostile...)
	if pid > 0 {
		want[0] = strconv.Itoa(pid)
	} else {
		want[0] = lines[0]
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the program saw:\n%s\nwant (pid, cwd, $PT_VAR, argv):\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for _, dir := range []string{cwd, filepath.Dir(out)} {
		m, _ := filepath.Glob(filepath.Join(dir, "PWNED*"))
		if len(m) > 0 {
			t.Fatalf("an argument was run by a shell: %v", m)
		}
	}
}

// paneteam pane-exec FILE, as a real process: it becomes the program
// (same pid), in the file's cwd, with its env, argv verbatim, and the
// file is gone.
func TestExecFileRunsTheProgramAsIs(t *testing.T) {
	bin := testutil.Binary(t)
	dir := filepath.Join(t.TempDir(), "launch")
	out := filepath.Join(t.TempDir(), "out")
	o, cwd := execFileOpen(t, out)
	path, err := WriteExecFile(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("launch file %s: %v, mode %v; want 0600", path, err, fi.Mode())
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Fatalf("launch folder mode %v; want 0700", di.Mode())
	}
	cmd := exec.Command(bin, "pane-exec", path)
	cmd.Dir = t.TempDir()
	cmd.Env = testutil.Env()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("paneteam pane-exec: %v\n%s", err, stderr.String())
	}
	execFileCheck(t, out, cwd, cmd.Process.Pid)
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("launch file still there after use: %v", err)
	}
	// Used once: the same line run again starts nothing.
	again := exec.Command(bin, "pane-exec", path)
	again.Env = testutil.Env()
	msg, err := again.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "pane launch file") {
		t.Fatalf("second pane-exec of the same file: %v, %q; want a failure naming the launch file", err, msg)
	}
}

// Files paneteam did not write as it writes them are refused, left in
// place, and start nothing.
func TestExecFileRefusesWhatItDidNotWrite(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, path string) string // returns the path to run
		want  string
	}{
		{"mode 0644", func(t *testing.T, p string) string {
			if err := os.Chmod(p, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, "not 0600"},
		{"mode 0640", func(t *testing.T, p string) string {
			if err := os.Chmod(p, 0o640); err != nil {
				t.Fatal(err)
			}
			return p
		}, "not 0600"},
		{"symlink", func(t *testing.T, p string) string {
			link := p + ".link"
			if err := os.Symlink(p, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, "symlink"},
		{"missing", func(t *testing.T, p string) string { return p + ".gone" }, "no such file"},
		{"folder", func(t *testing.T, p string) string {
			d := p + ".d"
			if err := os.Mkdir(d, 0o600); err != nil {
				t.Fatal(err)
			}
			return d
		}, "not a regular file"},
		{"other owner", func(t *testing.T, p string) string {
			// A file of another user's, as paneteam sees it: only root can
			// give the file away, so paneteam is told it runs as another.
			old := execFileOwner
			execFileOwner = func() int { return os.Getuid() + 1 }
			t.Cleanup(func() { execFileOwner = old })
			return p
		}, "not to you"},
		{"not json", func(t *testing.T, p string) string {
			if err := os.WriteFile(p, []byte("touch PWNED"), 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}, "not one paneteam wrote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			o, _ := execFileOpen(t, out)
			path, err := WriteExecFile(t.TempDir(), o)
			if err != nil {
				t.Fatal(err)
			}
			run := tc.spoil(t, path)
			_, _, _, err = ReadExecFile(run)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ReadExecFile(%s) = %v; want an error saying %q", tc.name, err, tc.want)
			}
			if tc.name != "missing" {
				if _, err := os.Lstat(run); err != nil {
					t.Fatalf("a refused file was touched: %v", err)
				}
			}
			if err := RunExecFile(run); err == nil {
				t.Fatal("RunExecFile ran a refused file")
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("the program ran from a refused file")
			}
		})
	}
}

func TestWriteExecFileRefusesBadInput(t *testing.T) {
	for _, o := range []Open{
		{},
		{Argv: []string{""}},
		{Argv: []string{"cat"}, Env: []string{"NOEQUALS"}},
		{Argv: []string{"cat"}, Env: []string{"=v"}},
	} {
		dir := t.TempDir()
		if p, err := WriteExecFile(dir, o); err == nil {
			t.Errorf("WriteExecFile(%+v) = %s; want an error", o, p)
		}
		if m, _ := os.ReadDir(dir); len(m) > 0 {
			t.Errorf("WriteExecFile(%+v) left %v", o, m)
		}
	}
}
