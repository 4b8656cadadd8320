//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// promptSession runs `paneteam prompt ...` in-process on a real
// pseudo-terminal; type answers with typeAnswers, read the screen with
// screen.
type promptSession struct {
	master *os.File
	tty    *os.File
	screen *testutil.Buffer
	done   chan int
}

func startPrompt(t *testing.T, vars map[string]string, args ...string) *promptSession {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("SKIPPED: no pseudo-terminal here: %v", err)
	}
	s := &promptSession{master: master, tty: tty, screen: &testutil.Buffer{}, done: make(chan int, 1)}
	var copied sync.WaitGroup
	copied.Add(1)
	go func() { defer copied.Done(); io.Copy(s.screen, master) }()
	go func() {
		env := Env{Stdin: tty, Stdout: tty, Stderr: tty, Vars: vars, Exe: testutil.Binary(t)}
		s.done <- Main(context.Background(), append([]string{"paneteam", "prompt"}, args...), env)
	}()
	t.Cleanup(func() { tty.Close(); master.Close(); copied.Wait() })
	return s
}

// answer waits for label on the screen and for raw mode, then types.
func (s *promptSession) answer(t *testing.T, label, keys string) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, "the question "+label+"; screen: "+s.screen.String(), func() bool {
		tio, err := unix.IoctlGetTermios(int(s.tty.Fd()), unix.TCGETS)
		return err == nil && tio.Lflag&unix.ICANON == 0 && strings.Contains(s.screen.String(), label)
	})
	if _, err := s.master.Write([]byte(keys)); err != nil {
		t.Fatal(err)
	}
}

func (s *promptSession) exit(t *testing.T) int {
	t.Helper()
	select {
	case code := <-s.done:
		return code
	case <-time.After(10 * time.Second):
		t.Fatalf("prompt did not finish; screen:\n%s", s.screen.String())
	}
	return -1
}

func TestPromptSendDeliversWhatWasTyped(t *testing.T) {
	root, vars := ptRootVars(t)
	ptRun(t, vars, "", "team-create", "t")
	ptAddMember(t, root, "t", "alice")
	text := `it's "$(touch x)" #{pane_id} %1 ` + "`id`" + ` \; ` + strings.Repeat("é", 3000)
	s := startPrompt(t, vars, "send", "--team", "t")
	s.answer(t, "to:", "bob\r") // not a member: said, and asked again
	s.answer(t, "has no member", "alice\r")
	s.answer(t, "message:", text+"\r")
	if code := s.exit(t); code != ExitOK {
		t.Fatalf("exit %d; screen:\n%s", code, s.screen.String())
	}
	tm, _, _ := team.Open(root, "t")
	msgs, err := mailbox.New(tm.InboxPath("alice"), lockOptsDefault()).ReadAll()
	if err != nil || len(msgs) != 1 || msgs[0].Text != text || msgs[0].From != team.LeadName {
		t.Errorf("inbox: %+v, %v", msgs, err)
	}
}

// A failure stays on screen until a key is pressed; Esc sends nothing.
func TestPromptFailureWaitsForAKeyAndEscCancels(t *testing.T) {
	root, vars := ptRootVars(t)
	ptRun(t, vars, "", "team-create", "t")
	ptAddMember(t, root, "t", "alice")

	s := startPrompt(t, vars, "send", "--team", "nosuch")
	s.answer(t, "press any key", "x")
	if code := s.exit(t); code != ExitFailure || !strings.Contains(s.screen.String(), "nosuch") {
		t.Errorf("exit %d; screen:\n%s", code, s.screen.String())
	}

	s = startPrompt(t, vars, "send", "--team", "t", "--to", "alice")
	s.answer(t, "message:", "half typed\x1b")
	if code := s.exit(t); code != ExitFailure {
		t.Errorf("Esc: exit %d", code)
	}
	tm, _, _ := team.Open(root, "t")
	if msgs, _ := mailbox.New(tm.InboxPath("alice"), lockOptsDefault()).ReadAll(); len(msgs) != 0 {
		t.Errorf("Esc sent %+v", msgs)
	}
}

func TestPromptNeedsATerminal(t *testing.T) {
	_, vars := ptRootVars(t)
	_, stderr, code := ptRun(t, vars, "", "prompt", "send", "--team", "t")
	if code != ExitUsage || !strings.Contains(stderr, "asks on a terminal") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if r := pt(t, vars).Run(t, "prompt", "--help"); r.Code != ExitOK || !strings.Contains(r.Stdout+r.Stderr, "display-popup -E paneteam prompt send") {
		t.Errorf("--help: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestPromptTakesANameBackAsShown: a member whose name holds characters
// a terminal would act on is offered escaped; typed back as offered, it
// is that member (and its plain name still is too).
func TestPromptTakesANameBackAsShown(t *testing.T) {
	var cfg team.Config
	if err := json.Unmarshal([]byte(`{"name":"crew","members":[{"name":"team-lead"},{"name":"bad\u001b[2Jname"},{"name":"alice"}]}`), &cfg); err != nil {
		t.Fatal(err)
	}
	p := &prompter{cfg: &cfg}
	shown := p.names(true)
	if len(shown) != 2 || shown[0] == "bad\x1b[2Jname" {
		t.Fatalf("offered %q", shown)
	}
	for _, typed := range []string{shown[0], "bad\x1b[2Jname"} {
		if got := p.resolve(typed); got != "bad\x1b[2Jname" || p.checkMember(false)(typed) != nil {
			t.Errorf("typed %q: resolved %q", typed, got)
		}
	}
	if got := p.resolve("alice"); got != "alice" {
		t.Errorf("alice: %q", got)
	}
}
