package it2test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// it2 runs the fake's it2 and returns its output.
func (f *Fake) it2(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(f.Bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("it2 %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestHostedSessionsRunAShell: in a hosted fake a split runs a real shell
// with iTerm2's variables; 'session run' types a line and Enter into it,
// 'session send' types without Enter; a session whose shell exits leaves
// the list, and 'session close -f' hangs up the shell.
func TestHostedSessionsRunAShell(t *testing.T) {
	f := New(t, Python)
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+dir)
	tm := f.Host(HostOptions{Env: env, Cwd: dir})
	if p, ok := f.Program(f.LeadID); !ok || p.PID <= 0 || p.Cwd != dir {
		t.Fatalf("the lead's session runs no shell in %s: %+v", dir, p)
	}
	split := func() string {
		out := f.it2(t, "session", "split", "-v", "-s", f.LeadID)
		id, ok := strings.CutPrefix(strings.TrimSpace(out), "Created new pane: ")
		if !ok {
			t.Fatalf("split printed %q", out)
		}
		return id
	}
	a := split()
	mark := filepath.Join(dir, "mark")
	f.it2(t, "session", "send", "-s", a, `echo "$ITERM_SESSION_ID $TERM_PROGRAM $PWD" >`)
	f.it2(t, "session", "run", "-s", a, " "+mark)
	testutil.Eventually(t, 10*time.Second, "the typed line to run in the session's shell", func() bool {
		b, _ := os.ReadFile(mark)
		return strings.TrimSpace(string(b)) == "w0t0p1:"+a+" iTerm.app "+dir
	})
	if s := f.Session(a); s == nil || !s.Hosted || strings.Join(s.Typed, "|") != `echo "$ITERM_SESSION_ID $TERM_PROGRAM $PWD" >| `+mark+"\r" {
		t.Errorf("session %s recorded %+v", a, s)
	}

	pa, _ := f.Program(a)
	// The shell ran the line; its echo reaches the screen in its own time.
	var screen string
	testutil.Eventually(t, 10*time.Second, "the typed line on the session's screen", func() bool {
		screen, _ = tm.Screen(pa.ID)
		return strings.Contains(screen, "$ITERM_SESSION_ID")
	})
	f.it2(t, "session", "run", "-s", a, "exit")
	testutil.Eventually(t, 10*time.Second, "a session whose shell exited to leave the list", func() bool {
		return !strings.Contains(f.it2(t, "session", "list", "--json"), a)
	})
	if _, err := exec.Command(f.Bin, "session", "run", "-s", a, "true").CombinedOutput(); err == nil {
		t.Error("typing into a session whose shell exited succeeded")
	}

	b := split()
	p, ok := f.Program(b)
	if !ok || p.PID <= 0 {
		t.Fatalf("session %s runs no shell: %+v", b, p)
	}
	if out := f.it2(t, "session", "close", "-f", "-s", b); !strings.Contains(out, "Session closed") {
		t.Errorf("close printed %q", out)
	}
	testutil.Eventually(t, 10*time.Second, "the closed session's shell to be hung up", func() bool {
		return syscall.Kill(p.PID, 0) != nil
	})
}

// TestCloseSessionHangsUp: the person closing a hosted session (the
// fake's CloseSession) hangs up its program, as iTerm2 does, in either
// flavour, and the session is gone from what it2 answers.
func TestCloseSessionHangsUp(t *testing.T) {
	for _, fl := range []Flavor{Python, Swift} {
		t.Run(string(fl), func(t *testing.T) {
			f := New(t, fl)
			dir := t.TempDir()
			f.Host(HostOptions{Env: append(os.Environ(), "HOME="+dir), Cwd: dir})
			out := f.it2(t, "session", "split", "-s", f.LeadID)
			id := strings.TrimSpace(strings.TrimPrefix(out, "Created new pane: "))
			p, ok := f.Program(id)
			if !ok || p.PID <= 0 {
				t.Fatalf("session %s runs no shell: %+v", id, p)
			}
			f.CloseSession(id)
			testutil.Eventually(t, 10*time.Second, "the closed session's shell to be hung up", func() bool {
				return syscall.Kill(p.PID, 0) != nil
			})
			if _, err := exec.Command(f.Bin, "session", "split", "-s", id).CombinedOutput(); err == nil {
				t.Errorf("a split of the closed session %s succeeded", id)
			}
			if lead, ok := f.Program(f.LeadID); !ok || syscall.Kill(lead.PID, 0) != nil {
				t.Errorf("closing %s ended the lead's session too", id)
			}
		})
	}
}
