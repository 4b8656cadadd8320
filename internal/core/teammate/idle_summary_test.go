package teammate

import (
	"fmt"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

// Six idle cycles of a program teammate in a team paneteam leads leave
// the lead one unread idle notice from it, the newest, and the five
// before it in the archive.
func TestIdleCyclesLeaveTheLeadOneUnreadNotice(t *testing.T) {
	tm := newTeam(t)
	// The first job is sent before the program starts, so no quiet
	// stretch begins before it, however slow the write.
	send(t, tm, "team-lead", "worker", "job 1")
	runProgram(t, tm, 300*time.Millisecond, quietCat...)
	lead := mailbox.New(tm.InboxPath("team-lead"), lockfile.Options{})
	idles := func(msgs []mailbox.Message, err error) (unread, all int) {
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if p, ok := mailbox.Parse(m.Text); ok && p.Type == mailbox.TypeIdle && m.From == "worker" {
				all++
				if !m.Read {
					unread++
				}
			}
		}
		return unread, all
	}
	for n := 1; n <= 6; n++ {
		if n > 1 {
			send(t, tm, "team-lead", "worker", fmt.Sprintf("job %d", n))
		}
		testutil.Eventually(t, long, fmt.Sprintf("idle notice %d", n), func() bool {
			_, inInbox := idles(lead.ReadAll())
			_, archived := idles(lead.Archived())
			return inInbox+archived >= n
		})
	}
	unread, inInbox := idles(lead.ReadAll())
	_, archived := idles(lead.Archived())
	if unread != 1 || inInbox != 1 || archived != 5 {
		t.Errorf("the lead's inbox holds %d idle notices from worker (%d unread), the archive %d; want 1 unread and 5 archived",
			inInbox, unread, archived)
	}
}
