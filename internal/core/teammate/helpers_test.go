package teammate

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

func TestMain(m *testing.M) {
	if os.Getenv("TEAMMATE_TEST_REPL") == "1" {
		slowRepl()
		return
	}
	os.Exit(m.Run())
}

// slowRepl is a line editor as hostile to typed input as real ones: raw
// mode; it discards typeahead once started (as shells and line editors
// do); it reads one byte every 20 ms; and, like editors that detect
// pastes, it takes a carriage return that was already queued behind
// other input as a newline inside the text, not as Enter. It turns
// bracketed paste on and prints "got: <line>" per submitted line, with
// newlines inside the line shown as '|'.
func slowRepl() {
	old, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		os.Exit(3)
	}
	raw := *old
	raw.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
	raw.Iflag &^= unix.ICRNL | unix.IXON
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	unix.IoctlSetTermios(0, unix.TCSETS, &raw)
	time.Sleep(300 * time.Millisecond)
	unix.IoctlSetInt(0, unix.TCFLSH, unix.TCIFLUSH)
	os.Stdout.WriteString("\x1b[?2004hready> ")
	var line, esc []byte
	paste, burst := false, false
	b := make([]byte, 1)
	for {
		time.Sleep(20 * time.Millisecond)
		if n, err := os.Stdin.Read(b); n == 0 || err != nil {
			return
		}
		pendingBefore := burst
		n, _ := unix.IoctlGetInt(0, unix.TIOCINQ)
		burst = n > 0
		c := b[0]
		switch {
		case len(esc) > 0 || c == 0x1b:
			esc = append(esc, c)
			if s := string(esc); s == "\x1b[200~" || s == "\x1b[201~" {
				paste, esc = s == "\x1b[200~", nil
			} else if len(esc) >= 6 {
				esc = nil
			}
		case c == '\r' && !paste && !pendingBefore:
			os.Stdout.WriteString("\r\ngot: " + string(line) + "\r\nready> ")
			line = line[:0]
		case c == '\r':
			line = append(line, '|')
		default:
			line = append(line, c)
		}
	}
}

// newTeam creates a team with members worker and bob in a temp root.
func newTeam(t *testing.T) team.Team {
	t.Helper()
	return teamtest.New(t, "wrap", team.CreateOptions{Cwd: t.TempDir()},
		teamtest.Like(team.Member{TmuxPaneID: team.InProcessPaneID, BackendType: team.BackendInProcess}, "worker", "bob")...)
}

var seq int64

func send(t *testing.T, tm team.Team, from, to, text string) mailbox.Message {
	t.Helper()
	seq++
	m := mailbox.Message{From: from, Text: text, Timestamp: mailbox.Timestamp(time.Now().Add(time.Duration(seq) * time.Millisecond))}
	if err := mailbox.New(tm.InboxPath(to), lockfile.Options{}).Append(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return m
}

func sendProtocol(t *testing.T, tm team.Team, from, to string, v any) {
	t.Helper()
	text, err := mailbox.Text(v)
	if err != nil {
		t.Fatal(err)
	}
	send(t, tm, from, to, text)
}

// protocolIn returns the protocol messages of type typ in agent's inbox.
func protocolIn(t *testing.T, tm team.Team, agent, typ string) []mailbox.Protocol {
	t.Helper()
	msgs, err := mailbox.New(tm.InboxPath(agent), lockfile.Options{}).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []mailbox.Protocol
	for _, m := range msgs {
		if p, ok := mailbox.Parse(m.Text); ok && p.Type == typ {
			out = append(out, p)
		}
	}
	return out
}

func unreadCount(t *testing.T, tm team.Team, agent string) int {
	t.Helper()
	u, err := mailbox.New(tm.InboxPath(agent), lockfile.Options{}).Unread()
	if err != nil {
		t.Fatal(err)
	}
	return len(u)
}

// running is a teammate loop under test.
type running struct {
	out  *testutil.Buffer
	prog *Program
	done chan error
	stop context.CancelFunc
}

func runProgram(t *testing.T, tm team.Team, idle time.Duration, argv ...string) *running {
	t.Helper()
	return runProgramEnv(t, tm, idle, testutil.Env(), argv...)
}

func runProgramEnv(t *testing.T, tm team.Team, idle time.Duration, env []string, argv ...string) *running {
	t.Helper()
	out := &testutil.Buffer{}
	p, err := StartProgram(argv, ProgramOptions{Mirror: out, Rows: 24, Cols: 200, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return runAgent(t, tm, idle, p, out, p)
}

func runAgent(t *testing.T, tm team.Team, idle time.Duration, a Agent, out *testutil.Buffer, p *Program) *running {
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{out: out, prog: p, done: make(chan error, 1), stop: cancel}
	go func() {
		r.done <- Run(ctx, Config{Team: tm, Name: "worker", Poll: 20 * time.Millisecond, IdleAfter: idle, Log: out}, a)
	}()
	t.Cleanup(func() {
		cancel()
		if p != nil {
			p.Stop(context.Background())
		}
		<-r.done
	})
	return r
}

func (r *running) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-r.done:
		r.done <- err // for Cleanup
		return err
	case <-time.After(d):
		t.Fatalf("the teammate did not end within %s", d)
		return nil
	}
}

func count(s, sub string) int { return strings.Count(s, sub) }
