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

func answers(r *ShutdownResult) map[string]ShutdownMember {
	out := map[string]ShutdownMember{}
	for _, m := range r.Members {
		out[m.Name] = m
	}
	return out
}

func TestShutdownHandshake(t *testing.T) {
	ctx := context.Background()
	tm := newTeam(t)
	addMembers(t, tm, "alice", "bob", "carol", "dave")
	// dave is idle: idle is not dead, he is asked like the others.
	if _, err := tm.Update(ctx, opts().Lock, func(c *team.Config) error {
		idle := false
		c.Member("dave").IsActive = &idle
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	tasks := tm.Tasks(opts().Lock)
	task, err := tasks.Create(ctx, team.NewTask{Subject: "Write the parser", Description: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tasks.Claim(ctx, task.ID, "alice"); err != nil {
		t.Fatal(err)
	}
	bobsTask, err := tasks.Create(ctx, team.NewTask{Subject: "Write the tests", Owner: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	// Something else for the lead, which shutdown must leave unread.
	lead := mailbox.New(tm.InboxPath(team.LeadName), opts().Lock)
	other := mailbox.Message{From: "carol", Text: "done with the lexer", Timestamp: mailbox.Timestamp(time.Now())}
	if err := lead.Append(ctx, other); err != nil {
		t.Fatal(err)
	}
	teammate(t, tm, "alice", "approve")
	teammate(t, tm, "bob", "reject")
	teammate(t, tm, "carol", "silent")
	teammate(t, tm, "dave", "approve")

	res, err := opts().Shutdown(ctx, tm, ShutdownOptions{All: true, Timeout: 2 * time.Second, Reason: "done"})
	if err != nil {
		t.Fatal(err)
	}
	got := answers(res)
	for name, want := range map[string]string{"alice": AnswerApproved, "bob": AnswerRejected, "carol": AnswerNone, "dave": AnswerApproved} {
		if got[name].Answer != want {
			t.Errorf("%s answered %q, want %q", name, got[name].Answer, want)
		}
	}
	if got["bob"].Reason != "still writing tests" {
		t.Errorf("bob's reason lost: %q", got["bob"].Reason)
	}
	if names := teamtest.Load(t, tm).MemberNames(); strings.Join(names, ",") != "team-lead,bob,carol" {
		t.Fatalf("members after shutdown: %v", names)
	}
	var left []string
	for _, m := range res.Remaining() {
		left = append(left, m.Name)
	}
	if strings.Join(left, ",") != "bob,carol" {
		t.Fatalf("Remaining = %v", left)
	}
	if tk, _ := tasks.Get(task.ID); tk.Owner != "" || tk.Status != team.StatusPending {
		t.Fatalf("alice's task not released: owner %q status %q", tk.Owner, tk.Status)
	}
	// bob refused and stays: his work stays his.
	if tk, _ := tasks.Get(bobsTask.ID); tk.Owner != "bob" || tk.Status != team.StatusInProgress {
		t.Fatalf("the task of bob, who refused, changed: owner %q status %q", tk.Owner, tk.Status)
	}
	// The request reached carol's inbox with its id and the reason.
	msgs, _ := mailbox.New(tm.InboxPath("carol"), opts().Lock).ReadAll()
	if len(msgs) != 1 || msgs[0].From != team.LeadName || !strings.Contains(msgs[0].Text, got["carol"].RequestID) || !strings.Contains(msgs[0].Text, `"reason":"done"`) {
		t.Fatalf("carol's inbox: %+v", msgs)
	}
	// Only the answers were marked read.
	unread, _ := lead.Unread()
	if len(unread) != 1 || unread[0].Text != other.Text {
		t.Fatalf("lead's unread messages: %+v", unread)
	}
}

func TestShutdownForceClosesRefusingAndSilentMembers(t *testing.T) {
	tm := newTeam(t)
	addMembers(t, tm, "bob", "carol")
	teammate(t, tm, "bob", "reject")
	teammate(t, tm, "carol", "silent")
	res, err := opts().Shutdown(context.Background(), tm, ShutdownOptions{Names: []string{"BOB", "carol"}, Timeout: 500 * time.Millisecond, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Members {
		if !m.Removed || !m.Forced {
			t.Errorf("%s: removed %v forced %v", m.Name, m.Removed, m.Forced)
		}
	}
	if names := teamtest.Load(t, tm).MemberNames(); strings.Join(names, ",") != "team-lead" {
		t.Fatalf("members after forced shutdown: %v", names)
	}
}

func TestShutdownRefusesUnknownNamesBeforeSendingAnything(t *testing.T) {
	tm := newTeam(t)
	addMembers(t, tm, "alice")
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"alice", "zed"}, `"zed" is not a member of team crew (members: team-lead, alice)`},
		{[]string{"team-lead"}, "the team lead cannot be asked to shut down"},
	} {
		_, err := opts().Shutdown(context.Background(), tm, ShutdownOptions{Names: c.names, Timeout: time.Second})
		if err == nil {
			t.Fatalf("Shutdown(%v) succeeded", c.names)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Shutdown(%v) = %v, want it to say %q", c.names, err, c.want)
		}
	}
	if _, err := os.Stat(tm.InboxPath("alice")); err == nil {
		t.Fatal("a request was sent although the call was refused")
	}
}

func TestShutdownIgnoresAnswersToOtherRequests(t *testing.T) {
	ctx := context.Background()
	tm := newTeam(t)
	addMembers(t, tm, "alice")
	// An old approval from an earlier request must not count.
	text, _ := mailbox.Text(mailbox.ShutdownApproved{Type: mailbox.TypeShutdownApproved, RequestID: "shutdown-1@alice", From: "alice", Timestamp: "2026-01-01T00:00:00.000Z"})
	lead := mailbox.New(tm.InboxPath(team.LeadName), opts().Lock)
	if err := lead.Append(ctx, mailbox.Message{From: "alice", Text: text, Timestamp: "2026-01-01T00:00:00.000Z"}); err != nil {
		t.Fatal(err)
	}
	res, err := opts().Shutdown(ctx, tm, ShutdownOptions{Names: []string{"alice"}, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Members[0]; a.Answer != AnswerNone || a.Removed {
		t.Fatalf("stale approval accepted: %+v", a)
	}
	if unread, _ := lead.Unread(); len(unread) != 1 {
		t.Fatalf("stale approval marked read: %+v", unread)
	}
}

// A row written straight into config.json under the lead's name in
// another spelling ("team.lead", whose inbox file is the lead's own
// team-lead.json) is the lead to a shutdown: --all asks it nothing, and
// naming it is refused as naming the lead is, so no shutdown_request
// lands in the lead's inbox.
func TestShutdownTakesTheLeadInAnySpelling(t *testing.T) {
	ctx := context.Background()
	tm := newTeam(t)
	addMembers(t, tm, "alice")
	if _, err := tm.Update(ctx, opts().Lock, func(c *team.Config) error {
		c.Members = append(c.Members, team.Member{Name: "team.lead", AgentID: "team.lead@" + tm.Name})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	teammate(t, tm, "alice", "approve")
	if _, err := opts().Shutdown(ctx, tm, ShutdownOptions{Names: []string{"team.lead"}, Timeout: time.Second}); err != ErrLeadStays {
		t.Fatalf("shutdown of team.lead = %v; want ErrLeadStays", err)
	}
	res, err := opts().Shutdown(ctx, tm, ShutdownOptions{All: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, asked := answers(res)["team.lead"]; asked {
		t.Fatalf("--all asked team.lead to shut down: %+v", res.Members)
	}
	msgs, err := mailbox.New(tm.InboxPath(team.LeadName), opts().Lock).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if strings.Contains(m.Text, mailbox.TypeShutdownRequest) {
			t.Fatalf("a shutdown_request reached the lead's own inbox: %s", m.Text)
		}
	}
}
