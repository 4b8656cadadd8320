package dashboard

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// TestSendPassesTheSignabilityCheck: the dashboard's message to a keyed
// teammate whose key this process cannot find is refused, as 'paneteam
// send' refuses it, instead of arriving unverified; once the key is
// there it arrives signed.
func TestSendPassesTheSignabilityCheck(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{LeaderPID: os.Getpid()},
		team.Member{Name: "alice", Paneteam: &team.MemberMeta{Keyed: true}})
	state := t.TempDir()
	getenv := func(k string) string {
		if k == "PANETEAM_STATE_DIR" {
			return state
		}
		return ""
	}
	live := &Live{Team: tm, Caller: post.Caller{Getenv: getenv}}
	inbox := mailbox.New(tm.InboxPath("alice"), lockfile.Options{})

	err := live.Send(context.Background(), "alice", "please stop")
	if err == nil || !strings.Contains(err.Error(), "signing key is missing") {
		t.Fatalf("send to a keyed teammate without its key: %v", err)
	}
	if msgs, _ := inbox.ReadAll(); len(msgs) != 0 {
		t.Fatalf("refused, yet alice's inbox holds %d messages", len(msgs))
	}

	keys, err := provenance.DefaultStore(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Create(tm.InboxPath("alice"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := live.Send(context.Background(), "alice", "please stop"); err != nil {
		t.Fatal(err)
	}
	msgs, err := inbox.ReadAll()
	if err != nil || len(msgs) != 1 || msgs[0].From != team.LeadName || msgs[0].LeadSig == "" {
		t.Errorf("alice's inbox %+v (%v), want one signed message from team-lead", msgs, err)
	}
	// Only members are written to, as Claude Code's SendMessage writes.
	if err := live.Send(context.Background(), "mallory", "hi"); err == nil || !strings.Contains(err.Error(), `"mallory" is not a member of team crew`) {
		t.Errorf("send to a name that is not a member: %v", err)
	}
}
