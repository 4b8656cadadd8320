package lifecycle

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// A member recorded as a plain program is ended without being asked;
// one recorded as answering, and one with no record (an older paneteam's,
// or written by another program), are asked and waited for as before.
func TestShutdownEndsMembersThatCannotAnswer(t *testing.T) {
	tm := newTeam(t)
	teamtest.Add(t, tm,
		team.Member{Name: "aider", Cwd: tm.Root, Paneteam: &team.MemberMeta{Shutdown: team.ShutdownEnd}},
		team.Member{Name: "wrapped", Cwd: tm.Root, Paneteam: &team.MemberMeta{Shutdown: team.ShutdownAsk}},
		team.Member{Name: "older", Cwd: tm.Root},
	)
	teammate(t, tm, "wrapped", "approve")
	teammate(t, tm, "older", "silent")
	res, err := opts().Shutdown(context.Background(), tm, ShutdownOptions{All: true, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got := answers(res)
	for name, want := range map[string]string{"aider": AnswerEnded, "wrapped": AnswerApproved, "older": AnswerNone} {
		if got[name].Answer != want {
			t.Errorf("%s answered %q, want %q", name, got[name].Answer, want)
		}
	}
	if a := got["aider"]; !a.Removed || a.RequestID != "" || a.Forced {
		t.Errorf("aider: removed %v, request %q, forced %v; want removed without a request", a.Removed, a.RequestID, a.Forced)
	}
	if _, err := os.Stat(tm.InboxPath("aider")); err == nil {
		msgs, _ := mailbox.New(tm.InboxPath("aider"), opts().Lock).ReadAll()
		t.Errorf("aider, which cannot read it, was sent %+v", msgs)
	}
	if msgs, _ := mailbox.New(tm.InboxPath("older"), opts().Lock).ReadAll(); len(msgs) != 1 {
		t.Errorf("older (no record) was not asked: inbox %+v", msgs)
	}
	if names := teamtest.Load(t, tm).MemberNames(); strings.Join(names, ",") != "team-lead,older" {
		t.Fatalf("members after shutdown: %v", names)
	}
}

// Ending a member that cannot answer does not wait out the timeout: with
// one of a minute, the call returns with the member gone, well before.
func TestShutdownOfAPlainProgramDoesNotWait(t *testing.T) {
	tm := newTeam(t)
	teamtest.Add(t, tm, team.Member{Name: "aider", Cwd: tm.Root, Paneteam: &team.MemberMeta{Shutdown: team.ShutdownEnd}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := opts().Shutdown(ctx, tm, ShutdownOptions{Names: []string{"aider"}, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("shutdown of a plain program: %v", err)
	}
	if len(res.Remaining()) != 0 || res.Members[0].Answer != AnswerEnded {
		t.Fatalf("aider after shutdown: %+v", res.Members)
	}
}
