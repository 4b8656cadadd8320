package hostile

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// The team every case starts from: team-lead, alice and bob (no panes),
// dave (in-process, his host gone),
// bob with a read message in his archive and an unread one in his inbox,
// alice with an unread one, and two tasks.
const (
	teamName   = "crew"
	goodUnread = "good unread message"
	goodOld    = "good archived message"
	goodAlice  = "good message for alice"
	goodTask   = "second task stays readable"
)

// folder is one case's world: a team root, a folder outside it holding
// the canary, and the environment every run of paneteam gets.
type folder struct {
	t       *testing.T
	root    string // PANETEAM_ROOT
	outside string // where hostile links lead: nothing in it may change
	canary  string // a file in outside
	env     []string
	tm      team.Team
	before  map[string]fileState
}

// fileState is what a person would notice of a file: content, mode, mtime.
type fileState struct {
	mode  fs.FileMode
	mtime time.Time
	sum   [32]byte
}

func newFolder(t *testing.T) *folder {
	t.Helper()
	f := &folder{t: t, root: testutil.Root(t), outside: t.TempDir()}
	f.canary = filepath.Join(f.outside, "canary")
	// The state folder, HOME and tmux's socket folder are the test's own:
	// nothing paneteam does here may reach the person's.
	f.env = testutil.Env("PANETEAM_ROOT="+f.root, "PANETEAM_STATE_DIR="+t.TempDir(),
		"HOME="+t.TempDir(), "XDG_STATE_HOME=", "TMUX_TMPDIR="+testutil.ShortTempDir(t),
		"PANETEAM_LOCK_TIMEOUT=2s", "NO_COLOR=1")
	f.tm = teamtest.OnRoot(t, f.root, teamName, team.CreateOptions{}, append(teamtest.Named("alice", "bob"),
		// dave runs in-process: logs and the pane census read his files in panes/.
		teamtest.Like(team.Member{BackendType: team.BackendInProcess, TmuxPaneID: "in-process"}, "dave")...)...)
	f.must("send", "--team", teamName, "--to", "bob", "--from", "alice", goodOld)
	f.must("inbox", "--team", teamName, "--name", "bob", "--mark-read")
	f.must("send", "--team", teamName, "--to", "bob", "--from", "alice", goodUnread)
	f.must("send", "--team", teamName, "--to", "alice", "--from", "bob", goodAlice)
	f.must("task", "create", "--team", teamName, "first task")
	f.must("task", "create", "--team", teamName, goodTask)
	if _, err := os.Stat(f.path(archiveRel)); err != nil {
		t.Fatalf("setup left no archive to plant over: %v", err)
	}
	f.writeCanary([]byte("canary: nothing paneteam does may change this file\n"))
	return f
}

// writeCanary gives the canary its content, a mode and an old mtime, so a
// write, a chmod or a touch through a followed link all show.
func (f *folder) writeCanary(b []byte) {
	f.t.Helper()
	if err := os.WriteFile(f.canary, b, 0o640); err != nil {
		f.t.Fatal(err)
	}
	old := time.Now().Add(-72 * time.Hour).Truncate(time.Second)
	if err := os.Chtimes(f.canary, old, old); err != nil {
		f.t.Fatal(err)
	}
}

func (f *folder) path(rel string) string { return filepath.Join(f.root, filepath.FromSlash(rel)) }

// snapshot records every file below outside.
func (f *folder) snapshot() map[string]fileState {
	f.t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(f.outside, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := fileState{mode: info.Mode(), mtime: info.ModTime()}
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st.sum = sha256.Sum256(b)
		}
		out[p] = st
		return nil
	})
	if err != nil {
		f.t.Fatalf("look outside the root: %v", err)
	}
	return out
}

// outsideChanges says what changed outside the root since before: a file
// written, touched or chmodded, or a new one (a lock, a temp file) made.
func (f *folder) outsideChanges() []string {
	now := f.snapshot()
	var out []string
	for p, was := range f.before {
		is, ok := now[p]
		switch {
		case !ok:
			out = append(out, p+" was removed")
		case p == f.outside:
			// The folder's own mtime moves with any entry made in it,
			// which the listing below catches by name.
		case is != was:
			out = append(out, p+" changed (content, mode or mtime)")
		}
	}
	for p := range now {
		if _, ok := f.before[p]; !ok {
			out = append(out, p+" was created")
		}
	}
	return out
}

// result is one run of the built paneteam.
type result struct {
	stdout, stderr string
	code           int
	timedOut       bool
}

func (r result) all() string { return r.stdout + r.stderr }

// run runs the built binary as a user would, for at most bound.
func (f *folder) run(bound time.Duration, args ...string) result {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, testutil.Binary(f.t), args...)
	cmd.Env = f.env
	cmd.WaitDelay = 2 * time.Second
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), timedOut: ctx.Err() != nil}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	default:
		f.t.Fatalf("run paneteam %s: %v", strings.Join(args, " "), err)
	}
	return r
}

func (f *folder) must(args ...string) string {
	f.t.Helper()
	r := f.run(30*time.Second, args...)
	if r.code != 0 {
		f.t.Fatalf("setup: paneteam %s: exit %d\n%s", strings.Join(args, " "), r.code, r.all())
	}
	return r.stdout
}

// link plants a symbolic link at rel pointing at target.
func (f *folder) link(rel, target string) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.RemoveAll(p); err != nil {
		f.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		f.t.Fatal(err)
	}
}

// write replaces the file at rel with b.
func (f *folder) write(rel string, b []byte) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.RemoveAll(p); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		f.t.Fatal(err)
	}
}

// read is the file at rel, or "" when there is none.
func (f *folder) read(rel string) string {
	b, _ := os.ReadFile(f.path(rel))
	return string(b)
}

// replace rewrites the file at rel with old replaced by new, once.
func (f *folder) replace(rel, old, new string) {
	f.t.Helper()
	s := f.read(rel)
	if !strings.Contains(s, old) {
		f.t.Fatalf("%s holds no %q:\n%s", rel, old, s)
	}
	f.write(rel, []byte(strings.Replace(s, old, new, 1)))
}
