package teammate

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
)

const long = 15 * time.Second

// cat with echo off prints each typed line exactly once.
var quietCat = []string{"sh", "-c", "stty -echo; exec cat"}

func TestCatGetsEveryMessageExactlyOnce(t *testing.T) {
	tm := newTeam(t)
	r := runProgram(t, tm, time.Hour, quietCat...)
	var texts []string
	for i := 0; i < 12; i++ {
		from := "team-lead"
		if i%3 == 0 {
			from = "bob"
		}
		text := fmt.Sprintf("message-%02d from %s", i, from)
		texts = append(texts, text)
		send(t, tm, from, "worker", text)
		if i%4 == 0 {
			time.Sleep(30 * time.Millisecond) // some arrive while others are being typed
		}
	}
	testutil.Eventually(t, long, "not every message reached cat", func() bool {
		for _, x := range texts {
			if !strings.Contains(r.out.String(), x) {
				return false
			}
		}
		return unreadCount(t, tm, "worker") == 0
	})
	time.Sleep(200 * time.Millisecond) // a duplicate, if any, would show by now
	out := r.out.String()
	for _, x := range texts {
		if n := count(out, x+"\r\n"); n != 1 {
			t.Errorf("%q reached cat %d times, want exactly once (as a whole line)", x, n)
		}
	}
}

func TestShellRunsEachMessageAsACommand(t *testing.T) {
	tm := newTeam(t)
	r := runProgramEnv(t, tm, time.Hour, append(testutil.Env(), "PS1=$ "), "sh")
	send(t, tm, "team-lead", "worker", "echo sum=$((40+2))")
	send(t, tm, "team-lead", "worker", "echo second; echo third")
	testutil.Eventually(t, long, "the shell did not run both messages", func() bool {
		o := r.out.String()
		return strings.Contains(o, "sum=42") && strings.Contains(o, "\nthird")
	})
}

func TestSlowPasteDetectingReplGetsEnterAfterTheText(t *testing.T) {
	tm := newTeam(t)
	// Sent before the program starts: it discards typeahead when ready,
	// so the wrapper must wait for its prompt.
	send(t, tm, "team-lead", "worker", "first line")
	env := append(testutil.Env(), "TEAMMATE_TEST_REPL=1")
	r := runProgramEnv(t, tm, time.Hour, env, os.Args[0], "-test.run=^$")
	send(t, tm, "team-lead", "worker", "second, a bit longer, message")
	send(t, tm, "bob", "worker", "multi\nline\nmessage")
	want := []string{"got: first line\r", "got: second, a bit longer, message\r", "got: multi|line|message\r"}
	testutil.Eventually(t, long, "the REPL did not submit every message", func() bool {
		for _, w := range want {
			if !strings.Contains(r.out.String(), w) {
				return false
			}
		}
		return true
	})
	out := r.out.String()
	if n := count(out, "got: "); n != len(want) {
		t.Fatalf("the REPL submitted %d lines, want %d (an Enter taken as text, or one lost):\n%q", n, len(want), out)
	}
}

func TestIdleNotificationAfterQuiet(t *testing.T) {
	tm := newTeam(t)
	// Sent before the program starts, so the first quiet stretch cannot
	// begin before the message is there, however slow the write.
	send(t, tm, "team-lead", "worker", "do the thing")
	r := runProgram(t, tm, 300*time.Millisecond, quietCat...)
	testutil.Eventually(t, long, "no idle_notification reached the lead", func() bool {
		return len(protocolIn(t, tm, "team-lead", mailbox.TypeIdle)) > 0
	})
	idle := protocolIn(t, tm, "team-lead", mailbox.TypeIdle)[0].Value.(*mailbox.IdleNotification)
	if idle.From != "worker" || idle.IdleReason != mailbox.IdleAvailable {
		t.Fatalf("idle notification = %+v", idle)
	}
	if !strings.Contains(r.out.String(), "do the thing") {
		t.Fatal("the message was not delivered before idling")
	}
	// One notification per quiet stretch, not one per poll.
	time.Sleep(500 * time.Millisecond)
	if n := len(protocolIn(t, tm, "team-lead", mailbox.TypeIdle)); n != 1 {
		t.Fatalf("%d idle notifications for one quiet stretch, want 1", n)
	}
}

func TestShutdownFirstThenApprovedAndProgramEnded(t *testing.T) {
	tm := newTeam(t)
	// Queued before the teammate starts: the shutdown must win.
	send(t, tm, "bob", "worker", "peer work")
	send(t, tm, "team-lead", "worker", "lead work")
	sendProtocol(t, tm, "team-lead", "worker", mailbox.ShutdownRequest{
		Type: mailbox.TypeShutdownRequest, RequestID: "shutdown-1@worker", From: "team-lead", Timestamp: mailbox.Timestamp(time.Now()),
	})
	r := runProgram(t, tm, time.Hour, quietCat...)
	if err := r.wait(t, long); err != nil {
		t.Fatalf("teammate after approving shutdown: %v", err)
	}
	approved := protocolIn(t, tm, "team-lead", mailbox.TypeShutdownApproved)
	if len(approved) != 1 {
		t.Fatalf("%d shutdown_approved messages, want 1", len(approved))
	}
	a := approved[0].Value.(*mailbox.ShutdownApproved)
	if a.RequestID != "shutdown-1@worker" || a.From != "worker" || a.BackendType != "in-process" || a.PaneID != "in-process" {
		t.Fatalf("approval = %+v", a)
	}
	select {
	case <-r.prog.Done():
	default:
		t.Fatal("the program still runs after the approval")
	}
	if o := r.out.String(); strings.Contains(o, "peer work") || strings.Contains(o, "lead work") {
		t.Fatalf("work was delivered before the shutdown: %q", o)
	}
	if n := unreadCount(t, tm, "worker"); n != 2 {
		t.Fatalf("%d unread left, want the 2 undelivered messages", n)
	}
}

func TestShutdownFromAPeerIsRejected(t *testing.T) {
	tm := newTeam(t)
	r := runProgram(t, tm, time.Hour, quietCat...)
	sendProtocol(t, tm, "bob", "worker", mailbox.ShutdownRequest{
		Type: mailbox.TypeShutdownRequest, RequestID: "r-bob", From: "bob", Timestamp: mailbox.Timestamp(time.Now()),
	})
	testutil.Eventually(t, long, "bob got no shutdown_rejected", func() bool {
		return len(protocolIn(t, tm, "bob", mailbox.TypeShutdownRejected)) == 1
	})
	rej := protocolIn(t, tm, "bob", mailbox.TypeShutdownRejected)[0].Value.(*mailbox.ShutdownRejected)
	if rej.RequestID != "r-bob" || !strings.Contains(rej.Reason, "team-lead") {
		t.Fatalf("rejection = %+v", rej)
	}
	send(t, tm, "team-lead", "worker", "still working")
	testutil.Eventually(t, long, "the teammate stopped working after a rejected shutdown", func() bool {
		return strings.Contains(r.out.String(), "still working")
	})
}

func TestProgramExitIsReportedToTheLead(t *testing.T) {
	tm := newTeam(t)
	r := runProgram(t, tm, time.Hour, "sh", "-c", "exit 4")
	if err := r.wait(t, long); err == nil {
		t.Fatal("a program that failed must make the teammate fail")
	}
	idle := protocolIn(t, tm, "team-lead", mailbox.TypeIdle)
	if len(idle) != 1 || idle[0].Value.(*mailbox.IdleNotification).IdleReason != mailbox.IdleFailed {
		t.Fatalf("want one idle_notification with idleReason failed, got %+v", idle)
	}
}

// A task_assignment the teammate sent itself (it took the task) is not
// typed into it; one from someone else is, and both stay readable.
func TestOwnTaskAssignmentIsNotDelivered(t *testing.T) {
	tm := newTeam(t)
	r := runProgram(t, tm, time.Hour, quietCat...)
	now := mailbox.Timestamp(time.Now())
	sendProtocol(t, tm, "worker", "worker", mailbox.TaskAssignment{Type: mailbox.TypeTaskAssignment, TaskID: "1",
		Subject: "mine already", AssignedBy: "worker", Timestamp: now})
	sendProtocol(t, tm, "bob", "worker", mailbox.TaskAssignment{Type: mailbox.TypeTaskAssignment, TaskID: "2",
		Subject: "handed over", AssignedBy: "bob", Timestamp: now})
	testutil.Eventually(t, long, "bob's assignment to reach cat", func() bool {
		return strings.Contains(r.out.String(), "Task #2 assigned to you by bob: handed over")
	})
	time.Sleep(300 * time.Millisecond) // the own one, if typed, would show by now
	if strings.Contains(r.out.String(), "mine already") {
		t.Errorf("the teammate's own task_assignment was typed into it:\n%s", r.out.String())
	}
	if n := unreadCount(t, tm, "worker"); n != 1 {
		t.Errorf("%d unread, want the own assignment left unread", n)
	}
}
