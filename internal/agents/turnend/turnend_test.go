package turnend

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

func TestReadTakesOnlyTheTeammatesTurnEnds(t *testing.T) {
	codex := profile.HookInput{From: "lastArg", Reply: "last-assistant-message", Match: map[string]string{"type": "agent-turn-complete"}}
	reply, ok, err := Read(codex, []string{"codex", `{"type":"agent-turn-complete","last-assistant-message":"done"}`}, nil)
	if err != nil || !ok || reply != "done" {
		t.Errorf("Codex turn end: %q %v %v", reply, ok, err)
	}
	if _, ok, err := Read(codex, []string{`{"type":"approval-requested"}`}, nil); ok || err != nil {
		t.Errorf("another Codex event was taken for a turn end: %v %v", ok, err)
	}
	gemini := profile.HookInput{From: "stdin", Reply: "prompt_response", Match: map[string]string{"hook_event_name": "AfterAgent"}}
	reply, ok, err = Read(gemini, nil, strings.NewReader(`{"hook_event_name":"AfterAgent","prompt_response":"all set"}`))
	if err != nil || !ok || reply != "all set" {
		t.Errorf("Gemini turn end: %q %v %v", reply, ok, err)
	}
	if _, _, err := Read(gemini, nil, strings.NewReader("not json")); err == nil {
		t.Error("a report that is not JSON was accepted")
	}
}

func TestReportWritesTheIdleNotification(t *testing.T) {
	root := t.TempDir()
	tm, _, err := team.Create(root, "review", team.CreateOptions{Cwd: root})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		_, err := c.AddMember(team.Member{Name: "coder"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	turns := filepath.Join(t.TempDir(), "turns")
	long := "First line of the reply\n" + strings.Repeat("x", 5000)
	if err := Report(context.Background(), tm, "coder", long, turns, lockfile.Options{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	msgs, _ := mailbox.New(tm.InboxPath(team.LeadName), lockfile.Options{}).ReadAll()
	if len(msgs) != 1 || msgs[0].From != "coder" {
		t.Fatalf("lead's inbox: %+v", msgs)
	}
	p, ok := mailbox.Parse(msgs[0].Text)
	n, _ := p.Value.(*mailbox.IdleNotification)
	if !ok || n == nil || n.IdleReason != mailbox.IdleAvailable || n.Summary != "First line of the reply" ||
		!strings.HasSuffix(n.Result, "[result truncated…]") || len([]rune(n.Result)) != 4000+len([]rune("\n[result truncated…]")) {
		t.Errorf("idle_notification: %+v", n)
	}
	if b, _ := os.ReadFile(turns); strings.Count(string(b), "\n") != 1 {
		t.Errorf("turn file: %q", b)
	}
	if err := Report(context.Background(), tm, "ghost", "x", "", lockfile.Options{}, time.Now()); err == nil {
		t.Error("a non-member's idle was reported")
	}
}

// TestReportsAreSummarised: the lead's inbox of a team paneteam leads
// keeps one plain idle notice per teammate, whoever writes them: an
// agent CLI's turn-end hook reports each turn, and the older notices move
// to the archive as post's own idle notices do, instead of piling up.
func TestReportsAreSummarised(t *testing.T) {
	root := t.TempDir()
	tm, _, err := team.Create(root, "review", team.CreateOptions{Cwd: root, LeaderPID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		_, err := c.AddMember(team.Member{Name: "coder"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i, reply := range []string{"turn one", "turn two", "turn three"} {
		if err := Report(context.Background(), tm, "coder", reply, "", lockfile.Options{}, start.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	in := mailbox.New(tm.InboxPath(team.LeadName), lockfile.Options{})
	msgs, _ := in.ReadAll()
	var unread []string
	for _, m := range msgs {
		if p, ok := mailbox.Parse(m.Text); ok && !m.Read {
			if n, isIdle := p.Value.(*mailbox.IdleNotification); isIdle {
				unread = append(unread, n.Summary)
			}
		}
	}
	if strings.Join(unread, ",") != "turn three" {
		t.Errorf("the lead's unread idle notices from coder: %q, want only the newest", unread)
	}
	if old, _ := in.Archived(); len(old) != 2 {
		t.Errorf("the archive holds %d notices, want the 2 older ones", len(old))
	}
}
