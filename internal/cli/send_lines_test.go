package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneteam/paneteam/mailbox"
)

// A pipeline's lines arrive one message each, in order, blank lines
// skipped, and --json prints one object per line.
func TestSendLinesSendsEachLine(t *testing.T) {
	_, vars, tm := msgTeam(t)
	out, errs, code := ptRun(t, vars, "first\n\nsecond line\r\n  \nthird", "send", "--team", "t", "--to", "bob", "--from", "alice", "--lines", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	if got := msgTexts(inboxOf(t, tm, "bob")); got != "first,second line,third" {
		t.Fatalf("bob's inbox holds %q", got)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("--json printed %d lines, want one per message:\n%s", len(lines), out)
	}
	for i, want := range []string{"first", "second line", "third"} {
		var d struct {
			To      string          `json:"to"`
			Message mailbox.Message `json:"message"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &d); err != nil || d.To != "bob" || d.Message.Text != want || d.Message.From != "alice" {
			t.Fatalf("--json line %d is %q (%v)", i+1, lines[i], err)
		}
	}
}

// Each line is on disk while stdin is still open: a long-running producer
// (tail -F, a build) is not held back until it ends.
func TestSendLinesDeliversEachLineBeforeStdinCloses(t *testing.T) {
	root, _, tm := msgTeam(t)
	cmd := ptCmd(t, root, "send", "--team", "t", "--to", "bob", "--lines", "--json")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	acks := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			acks <- sc.Text()
		}
		close(acks)
	}()
	for i, text := range []string{"one", "two", "three"} {
		if _, err := io.WriteString(stdin, text+"\n"); err != nil {
			t.Fatal(err)
		}
		select {
		case _, ok := <-acks:
			if !ok {
				t.Fatalf("send --lines ended before delivering line %d", i+1)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("line %d was not delivered while stdin stayed open", i+1)
		}
		// Printed means written: the inbox already holds it.
		msgs := inboxOf(t, tm, "bob")
		if len(msgs) != i+1 || msgs[i].Text != text {
			t.Fatalf("after line %d was acknowledged bob holds %q", i+1, msgTexts(msgs))
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("send --lines after stdin closed: %v", err)
	}
}

func TestSendLinesToEveryoneStopsAtABadLine(t *testing.T) {
	_, vars, tm := msgTeam(t)
	if _, errs, code := ptRun(t, vars, "a\nb\n", "send", "--team", "t", "--broadcast", "--lines"); code != 0 {
		t.Fatal(errs)
	}
	for _, name := range []string{"alice", "bob"} {
		if got := msgTexts(inboxOf(t, tm, name)); got != "a,b" {
			t.Fatalf("%s holds %q, want both lines", name, got)
		}
	}
	_, errs, code := ptRun(t, vars, "ok\nbad \xff byte\nnever\n", "send", "--team", "t", "--to", "bob", "--lines")
	if code != 1 || !strings.Contains(errs, "line 2") || !strings.Contains(errs, "UTF-8") || !strings.Contains(errs, "the 1 message before it was delivered") {
		t.Fatalf("exit %d, stderr %q: want line 2 named as not UTF-8 and how far it got", code, errs)
	}
	if got := msgTexts(inboxOf(t, tm, "bob")); got != "a,b,ok" {
		t.Fatalf("bob holds %q, want the line before the bad one and nothing after", got)
	}
}

func TestSendLinesRefusals(t *testing.T) {
	_, vars, tm := msgTeam(t)
	for _, c := range []struct {
		args    []string
		mention string
	}{
		{[]string{"--lines", "some text"}, "stdin"},
		{[]string{"--lines", "--type", "shutdown_request"}, "--type"},
	} {
		_, errs, code := ptRun(t, vars, "x\n", append([]string{"send", "--team", "t", "--to", "bob"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.mention) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error mentioning %s", c.args, code, errs, c.mention)
		}
	}
	if msgs := inboxOf(t, tm, "bob"); len(msgs) != 0 {
		t.Fatalf("a refused send wrote %q", msgTexts(msgs))
	}
}

// A burst of identical lines (a log repeating itself) is as many messages:
// sent in the same millisecond, they are still separate deliveries.
func TestSendLinesRepeatedLinesAreAllDelivered(t *testing.T) {
	root, _, tm := msgTeam(t)
	const n = 2000
	cmd := ptCmd(t, root, "send", "--team", "t", "--to", "bob", "--lines")
	cmd.Stdin = strings.NewReader(strings.Repeat("same line\n", n))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("send --lines: %v\n%s", err, out)
	}
	msgs := inboxOf(t, tm, "bob")
	stamps := map[string]bool{}
	for _, m := range msgs {
		stamps[m.Timestamp] = true
	}
	if len(msgs) != n {
		t.Fatalf("%d identical lines left %d messages (%d distinct timestamps)", n, len(msgs), len(stamps))
	}
	t.Logf("%d messages share %d timestamps", n, len(stamps))
}

// SIGTERM (systemd, timeout, kill) stops a stream whose stdin never
// closes, at once and cleanly, after delivering what it read.
func TestSendLinesStopsOnSignalWhileWaiting(t *testing.T) {
	root, _, tm := msgTeam(t)
	cmd := ptCmd(t, root, "send", "--team", "t", "--to", "bob", "--lines", "--json")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, "before the signal\n")
	if !bufio.NewScanner(stdout).Scan() {
		t.Fatal("the line was not delivered")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("send --lines stopped by SIGTERM: %v, want exit 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("send --lines kept waiting for stdin after SIGTERM")
	}
	if got := msgTexts(inboxOf(t, tm, "bob")); got != "before the signal" {
		t.Fatalf("bob holds %q", got)
	}
}
