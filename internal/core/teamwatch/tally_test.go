package teamwatch

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// status counts inboxes as streams (MembersOnly) where watch and the
// dashboard keep every message: both must judge every member alike, its
// unread count, latest idle notice (the last of the newest, archive
// before inbox) and state.
func TestMembersOnlyJudgesMembersAsTheFullSnapshot(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("alice", "bob")...)
	idle := func(from, reason string) string {
		b, _ := json.Marshal(map[string]string{"type": mailbox.TypeIdle, "from": from, "idleReason": reason})
		return string(b)
	}
	const t1, t2 = "2026-03-01T10:00:00.000Z", "2026-03-01T10:00:05.000Z"
	appendMsg(t, tm, team.LeadName, mailbox.Message{From: "alice", Text: idle("alice", "inbox tie"), Timestamp: t2})
	appendMsg(t, tm, team.LeadName, mailbox.Message{From: "BOB", Text: "hello", Timestamp: t1})
	appendMsg(t, tm, team.LeadName, mailbox.Message{From: "bob", Text: `{"type":"idle\u005fnotification","idleReason":"escaped"}`, Timestamp: t1})
	appendMsg(t, tm, "bob", mailbox.Message{From: "alice", Text: "work", Timestamp: t2})
	appendMsg(t, tm, "alice", mailbox.Message{From: "mallory", Text: idle("mallory", "x"), Timestamp: t2})
	arch := mailbox.ArchivePath(tm.InboxPath(team.LeadName))
	line, _ := json.Marshal(mailbox.Message{From: "alice", Text: idle("alice", "archive tie"), Timestamp: t2, Read: true})
	if err := os.WriteFile(arch, append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}

	full, err := Take(context.Background(), tm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	members, err := Take(context.Background(), tm, Options{MembersOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(full.Members, members.Members) {
		t.Fatalf("members differ:\nfull:         %+v\nmembers only: %+v", full.Members, members.Members)
	}
	if a := members.Member("alice"); a.IdleReason != "inbox tie" || members.Member("bob").IdleReason != "escaped" {
		t.Fatalf("latest idle notices: %+v", members.Members)
	}
	if !reflect.DeepEqual(full.Problems, members.Problems) || !reflect.DeepEqual(full.LeadInbox, members.LeadInbox) {
		t.Fatalf("problems or lead inbox differ: %v %v / %v %v", full.Problems, full.LeadInbox, members.Problems, members.LeadInbox)
	}
}
