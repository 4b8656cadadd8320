package teammate

import (
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

func TestReferenceTeammateRepliesIdlesAndApprovesShutdown(t *testing.T) {
	tm := newTeam(t)
	out := &testutil.Buffer{}
	ref := &Reference{Team: tm, Name: "worker", Out: out}
	r := runAgent(t, tm, 200*time.Millisecond, ref, out, nil)
	send(t, tm, "team-lead", "worker", "please review\nthe parser")
	send(t, tm, "bob", "worker", Reply("an earlier note")) // a reply: read, not answered
	testutil.Eventually(t, long, "no reply reached the lead", func() bool {
		msgs, _ := mailbox.New(tm.InboxPath("team-lead"), lockfile.Options{}).ReadAll()
		for _, m := range msgs {
			if m.From == "worker" && m.Text == Reply("please review\nthe parser") {
				return true
			}
		}
		return false
	})
	testutil.Eventually(t, long, "no idle notification", func() bool {
		return len(protocolIn(t, tm, "team-lead", mailbox.TypeIdle)) > 0
	})
	testutil.Eventually(t, long, "the reply from bob was not read", func() bool { return unreadCount(t, tm, "worker") == 0 })
	if msgs, _ := mailbox.New(tm.InboxPath("bob"), lockfile.Options{}).ReadAll(); len(msgs) != 0 {
		t.Fatalf("the reference teammate answered a reply: %+v", msgs)
	}
	sendProtocol(t, tm, "team-lead", "worker", mailbox.ShutdownRequest{
		Type: mailbox.TypeShutdownRequest, RequestID: "req-9", From: "team-lead", Timestamp: mailbox.Timestamp(time.Now()),
	})
	if err := r.wait(t, long); err != nil {
		t.Fatal(err)
	}
	if len(protocolIn(t, tm, "team-lead", mailbox.TypeShutdownApproved)) != 1 {
		t.Fatal("no shutdown_approved")
	}
	if !strings.Contains(out.String(), "team-lead: please review / the parser") {
		t.Fatalf("the pane does not show the message: %q", out.String())
	}
}

func TestReplyQuotesEveryLine(t *testing.T) {
	if got, want := Reply("a\nb\n"), replyPrefix+"\n> a\n> b"; got != want {
		t.Fatalf("Reply = %q, want %q", got, want)
	}
}
