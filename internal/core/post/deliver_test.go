package post_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// texts is what name's inbox holds, joined by ",".
func texts(t *testing.T, tm team.Team, name string) string {
	t.Helper()
	msgs, err := mailbox.New(tm.InboxPath(name), lockfile.Options{}).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, m := range msgs {
		s = append(s, m.Text)
	}
	return strings.Join(s, ",")
}

// bobPost is bob's post in a paneteam team (alice, bob): nothing to sign.
func bobPost(t *testing.T) (team.Team, *post.Post) {
	t.Helper()
	tm, cfg := paneteamTeam(t)
	var warned []string
	p, err := caller(&warned, "PANETEAM_AGENT=bob").Open(tm, cfg, lockfile.Options{}, "bob", []string{"alice", team.LeadName}, "")
	if err != nil {
		t.Fatal(err)
	}
	return tm, p
}

// blockInbox makes every write to name's inbox fail: a regular file where
// its lock directory goes is never removed by a writer (docs/PROTOCOL.md §4).
func blockInbox(t *testing.T, tm team.Team, name string) {
	t.Helper()
	if err := os.MkdirAll(tm.InboxDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tm.InboxPath(name)+".lock", nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// One recipient's failed write does not keep the message from the
// others; the error names who missed it and how many it reached.
func TestSendEachReachesTheOthers(t *testing.T) {
	tm, p := bobPost(t)
	blockInbox(t, tm, "alice")
	sent, err := p.SendEach(context.Background(), []string{"alice", team.LeadName}, post.Plain("stand-up", "now"))
	var missed *post.Undelivered
	if !errors.As(err, &missed) || len(sent) != 1 || sent[0].To != team.LeadName || missed.Delivered != 1 ||
		!strings.HasPrefix(err.Error(), "not delivered to alice (") || !strings.HasSuffix(err.Error(), "; delivered to the 1 others") {
		t.Fatalf("SendEach: %+v, %v", sent, err)
	}
	if got := texts(t, tm, team.LeadName); got != "stand-up" {
		t.Errorf("the lead's inbox holds %q", got)
	}
	m := sent[0].Message
	if m.From != "bob" || m.Color != "green" || m.Summary != "now" || m.Timestamp == "" {
		t.Errorf("delivered %+v, want bob's, in his colour, with its summary and time", m)
	}
	// The only recipient's failure is that failure.
	if _, err := p.SendEach(context.Background(), []string{"alice"}, post.Plain("again", "")); err == nil ||
		errors.As(err, &missed) || !strings.HasPrefix(err.Error(), "send to alice: ") {
		t.Errorf("to alice alone: %v", err)
	}
}

// A message that is not valid is refused before any inbox is written.
func TestSendEachRefusesBeforeWriting(t *testing.T) {
	tm, p := bobPost(t)
	_, err := p.SendEach(context.Background(), []string{team.LeadName, "alice"}, post.Plain("bad \xff", ""))
	if err == nil || !strings.Contains(err.Error(), "UTF-8") || strings.HasPrefix(err.Error(), "send to") {
		t.Fatalf("invalid text: %v", err)
	}
	if got := texts(t, tm, team.LeadName) + texts(t, tm, "alice"); got != "" {
		t.Errorf("a refused message was written: %q", got)
	}
}

// Each line is its own message, on disk and reported before the next is
// read; blank lines are skipped and line ends dropped.
func TestSendLines(t *testing.T) {
	tm, p := bobPost(t)
	r, w := io.Pipe()
	reported := make(chan post.Delivery)
	looked := make(chan struct{}) // the test has read the inbox: the next line may go
	done := make(chan error, 1)
	go func() {
		done <- p.SendLines(context.Background(), r, []string{"alice"}, "log", func(d post.Delivery) error {
			reported <- d
			<-looked
			return nil
		})
	}()
	go io.WriteString(w, "first\n\n  \nsecond\r\n") // a pipe's write waits for its reader
	for _, want := range []string{"first", "second"} {
		select {
		case d := <-reported:
			if d.To != "alice" || d.Message.Text != want || d.Message.Summary != "log" || d.Message.From != "bob" {
				t.Fatalf("reported %+v, want %q", d, want)
			}
			if got := texts(t, tm, "alice"); !strings.HasSuffix(got, want) {
				t.Fatalf("reported %q before it was on disk (inbox: %q)", want, got)
			}
			looked <- struct{}{}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q not delivered while the input stays open", want)
		}
	}
	go func() {
		io.WriteString(w, "last, no newline")
		w.Close()
	}()
	if d := <-reported; d.Message.Text != "last, no newline" {
		t.Fatalf("reported %+v", d)
	}
	looked <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := texts(t, tm, "alice"); got != "first,second,last, no newline" {
		t.Errorf("alice's inbox holds %q", got)
	}
}

// A line that cannot be sent stops the stream and says how far it got.
func TestSendLinesStopsAtABadLine(t *testing.T) {
	tm, p := bobPost(t)
	err := p.SendLines(context.Background(), strings.NewReader("one\nbad \xff\nthree\n"), []string{"alice", team.LeadName}, "", nil)
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: ") || !strings.HasSuffix(err.Error(), "(the 1 message before it was delivered)") {
		t.Fatalf("bad line: %v", err)
	}
	blockInbox(t, tm, team.LeadName)
	err = p.SendLines(context.Background(), strings.NewReader("four\n"), []string{"alice", team.LeadName}, "", nil)
	if err == nil || !strings.Contains(err.Error(), "line 1: send to team-lead: ") || !strings.HasSuffix(err.Error(), "(it reached alice; the 0 messages before it were delivered)") {
		t.Fatalf("blocked inbox: %v", err)
	}
	if got := texts(t, tm, "alice"); got != "one,four" {
		t.Errorf("alice's inbox holds %q", got)
	}
}

// Ending the context ends a stream whose input never closes, without an
// error: the way a person stops 'send --lines'.
func TestSendLinesEndsWithItsContext(t *testing.T) {
	_, p := bobPost(t)
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.SendLines(ctx, r, []string{"alice"}, "", nil) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SendLines went on waiting for input after its context ended")
	}
}
