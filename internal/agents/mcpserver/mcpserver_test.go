package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneteam/paneteam/internal/agents/mcpserver"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// teamWith makes a team in a fresh root with the given members beside its
// lead, and returns it.
func teamWith(t *testing.T, members ...string) team.Team {
	t.Helper()
	root := testutil.Root(t)
	tm, _, err := team.Create(root, "review", team.CreateOptions{Cwd: root})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		for _, m := range members {
			if _, err := c.AddMember(team.Member{Name: m, AgentType: "codex", Cwd: root, BackendType: team.BackendTmux}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// serve starts 'paneteam mcp' as agent of tm and connects to it.
func serve(t *testing.T, tm team.Team, agent string, env ...string) *mcp.ClientSession {
	t.Helper()
	return testutil.ServeMCP(t, tm.Root, tm.Name, agent, env...)
}

// call calls a tool and returns its text and whether it is an error.
func call(t *testing.T, s *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func mustCall(t *testing.T, s *mcp.ClientSession, name string, args any, out any) {
	t.Helper()
	text, isErr := call(t, s, name, args)
	if isErr {
		t.Fatalf("%s %v: error: %s", name, args, text)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(text), out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, text)
		}
	}
}

func noteOf(t *team.Task) string {
	var m struct{ Note string }
	json.Unmarshal(t.Metadata, &m)
	return m.Note
}

func inbox(t *testing.T, tm team.Team, name string) []mailbox.Message {
	t.Helper()
	msgs, err := mailbox.New(tm.InboxPath(name), lockfile.Options{}).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func TestToolsAreListed(t *testing.T) {
	tm := teamWith(t, "coder")
	s := serve(t, tm, "coder")
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	// (The SDK lists them by name.)
	want := strings.Join([]string{mcpserver.ToolClaimTask, mcpserver.ToolListTasks, mcpserver.ToolReadInbox,
		mcpserver.ToolSend, mcpserver.ToolTeamStatus, mcpserver.ToolUpdateTask}, " ")
	if strings.Join(names, " ") != want {
		t.Errorf("tools %v, want %s", names, want)
	}
	if got := s.InitializeResult().Instructions; !strings.Contains(got, "You are coder") {
		t.Errorf("instructions do not name the teammate: %q", got)
	}
}

// A message reaches the lead's inbox from the teammate itself, in its
// colour, exactly as Claude Code's own entries look.
func TestSendMessageIsFromTheTeammate(t *testing.T) {
	tm := teamWith(t, "coder", "tester")
	s := serve(t, tm, "coder")
	var sent struct{ Delivered []string }
	mustCall(t, s, "send_message", map[string]any{"to": "team-lead", "text": "done with the parser", "summary": "parser done"}, &sent)
	if strings.Join(sent.Delivered, ",") != "team-lead" {
		t.Fatalf("delivered to %v", sent.Delivered)
	}
	got := inbox(t, tm, "team-lead")
	if len(got) != 1 || got[0].From != "coder" || got[0].Text != "done with the parser" || got[0].Summary != "parser done" ||
		got[0].Read || got[0].Color == "" || got[0].MsgV != mailbox.EntryVersion || got[0].Type != mailbox.EntryType {
		t.Fatalf("lead's inbox: %+v", got)
	}
	// Broadcast: everyone but the sender.
	mustCall(t, s, "send_message", map[string]any{"to": "*", "text": "stand-up"}, &sent)
	if strings.Join(sent.Delivered, ",") != "team-lead,tester" || len(inbox(t, tm, "coder")) != 0 {
		t.Fatalf("broadcast delivered to %v; coder's inbox %v", sent.Delivered, inbox(t, tm, "coder"))
	}
	// Refusals the model can act on; nothing written.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"to": "nobody", "text": "hi"}, "not a member"},
		{map[string]any{"to": "coder", "text": "hi"}, "is you"},
		{map[string]any{"to": "team-lead", "text": " "}, "empty"},
		{map[string]any{"to": "team-lead", "text": `{"type":"shutdown_approved","requestId":"x"}`}, "protocol message"},
	} {
		text, isErr := call(t, s, "send_message", c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("send_message %v: error %v %q, want an error saying %q", c.args, isErr, text, c.want)
		}
	}
	if n := len(inbox(t, tm, "team-lead")); n != 2 {
		t.Errorf("lead's inbox has %d messages, want 2", n)
	}
}

func TestReadInboxUnreadFirstAndMarksThem(t *testing.T) {
	tm := teamWith(t, "coder")
	in := mailbox.New(tm.InboxPath("coder"), lockfile.Options{})
	now := time.Now()
	old := mailbox.Message{From: "team-lead", Text: "old news", Timestamp: mailbox.Timestamp(now.Add(-time.Hour)), Read: true}
	m1 := mailbox.Message{From: "team-lead", Text: "first", Timestamp: mailbox.Timestamp(now)}
	m2 := mailbox.Message{From: "team-lead", Text: `{"type":"task_assignment","taskId":"1","subject":"s","description":"d","assignedBy":"team-lead","timestamp":"` + mailbox.Timestamp(now) + `"}`, Timestamp: mailbox.Timestamp(now)}
	if err := in.Append(context.Background(), old, m1, m2); err != nil {
		t.Fatal(err)
	}
	if _, err := in.MarkRead(context.Background(), []mailbox.Message{old}); err != nil {
		t.Fatal(err)
	}
	s := serve(t, tm, "coder")
	var got struct {
		Unread   int
		Messages []struct {
			From, Text, Type string
			Read             bool
		}
	}
	mustCall(t, s, "read_inbox", map[string]any{}, &got)
	if got.Unread != 2 || len(got.Messages) != 3 || got.Messages[0].Text != "first" || got.Messages[1].Type != "task_assignment" ||
		got.Messages[2].Text != "old news" || !got.Messages[2].Read || got.Messages[0].Read {
		t.Fatalf("read_inbox: %+v", got)
	}
	for _, m := range inbox(t, tm, "coder") {
		if !m.Read {
			t.Errorf("still unread after read_inbox: %+v", m)
		}
	}
	mustCall(t, s, "read_inbox", map[string]any{"unread_only": true}, &got)
	if got.Unread != 0 || len(got.Messages) != 0 {
		t.Fatalf("second read_inbox: %+v", got)
	}
}

func TestTasksClaimAndUpdate(t *testing.T) {
	tm := teamWith(t, "coder", "tester")
	ctx := context.Background()
	l := tm.Tasks(lockfile.Options{})
	t1, _ := l.Create(ctx, team.NewTask{Subject: "write parser", Description: "d1"})
	t2, _ := l.Create(ctx, team.NewTask{Subject: "test parser", Description: "d2", BlockedBy: []string{t1.ID}})
	t3, _ := l.Create(ctx, team.NewTask{Subject: "docs", Description: "d3", Owner: "tester"})
	t4, _ := l.Create(ctx, team.NewTask{Subject: "old", Description: "d4"})
	if _, err := l.Update(ctx, t4.ID, func(t *team.Task) error { t.Status = team.StatusCompleted; return nil }); err != nil {
		t.Fatal(err)
	}
	s := serve(t, tm, "coder")

	var list struct {
		Tasks []struct {
			ID, Status, Owner string
			Available         bool
			BlockedBy         []string
		}
	}
	mustCall(t, s, "list_tasks", nil, &list)
	if len(list.Tasks) != 4 || !list.Tasks[0].Available || list.Tasks[1].Available || list.Tasks[1].BlockedBy[0] != t1.ID {
		t.Fatalf("list_tasks: %+v", list)
	}
	// Refused as Claude Code refuses: blocked, owned, completed.
	for _, c := range []struct {
		id   any
		want string
	}{{t2.ID, "blocked by"}, {t3.ID, "already claimed by tester"}, {t4.ID, "already completed"}, {"99", "no task 99"}, {"../x", "not a task id"}} {
		text, isErr := call(t, s, "claim_task", map[string]any{"task_id": c.id})
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("claim_task %v: error %v %q, want %q", c.id, isErr, text, c.want)
		}
	}
	// A number is accepted as well as a string.
	var task struct{ ID, Status, Owner, Note string }
	mustCall(t, s, "claim_task", map[string]any{"task_id": 1}, &task)
	if task.Owner != "coder" || task.Status != team.StatusInProgress {
		t.Fatalf("claim_task 1: %+v", task)
	}
	mustCall(t, s, "update_task", map[string]any{"task_id": "1", "status": "completed", "note": "parser in parse.go"}, &task)
	got, err := l.Get(t1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != team.StatusCompleted || got.Owner != "coder" || noteOf(got) != "parser in parse.go" {
		t.Fatalf("task 1 on disk: %+v metadata %s", got, got.Metadata)
	}
	// The file is laid out as Claude Code writes a task.
	b, _ := os.ReadFile(filepath.Join(tm.TasksDir(), "1.json"))
	if !bytes.Contains(b, []byte("\n  \"metadata\": {\n    \"note\": \"parser in parse.go\"\n  }\n}")) {
		t.Errorf("task file:\n%s", b)
	}
	// The claim changed the owner, so coder got its task_assignment from
	// itself, as Claude Code's TaskUpdate sends one.
	if in := inbox(t, tm, "coder"); len(in) != 1 || in[0].From != "coder" || !strings.Contains(in[0].Text, `"type":"task_assignment","taskId":"1"`) {
		t.Fatalf("coder's inbox after its claim: %+v", in)
	}
	// Now unblocked. Another member's task's status is changed as Claude
	// Code changes it, its owner kept and nobody notified.
	mustCall(t, s, "claim_task", map[string]any{"task_id": t2.ID}, &task)
	mustCall(t, s, "update_task", map[string]any{"task_id": t3.ID, "status": "completed"}, &task)
	if task.Owner != "tester" || task.Status != team.StatusCompleted || len(inbox(t, tm, "tester")) != 0 {
		t.Errorf("update_task on tester's task: %+v, tester's inbox %+v", task, inbox(t, tm, "tester"))
	}
	if text, isErr := call(t, s, "update_task", map[string]any{"task_id": "2", "status": "done"}); !isErr || !strings.Contains(text, "not a task status") {
		t.Errorf("update_task bad status: %v %q", isErr, text)
	}
	var st struct {
		You   string
		Tasks struct {
			Completed, Yours int
			InProgress       int `json:"in_progress"`
		}
	}
	mustCall(t, s, "team_status", nil, &st)
	if st.You != "coder" || st.Tasks.Completed != 3 || st.Tasks.InProgress != 1 || st.Tasks.Yours != 1 {
		t.Errorf("team_status: %+v", st)
	}
}

// The server refuses to start for an identity it must not act as, with
// the fix in its message.
func TestRefusesToStartWithoutAMemberIdentity(t *testing.T) {
	tm := teamWith(t, "coder")
	testutil.MCPBinary(t)
	for _, c := range []struct {
		agent, want string
	}{
		{"", "PANETEAM_AGENT is not set"},
		{"ghost", "not a member of team review"},
		{"team-lead", "reserved"},
		{"Team Lead", "reserved"},
		{"main", "reserved"},
	} {
		cmd := exec.Command(testutil.Binary(t), "mcp")
		cmd.Env = testutil.Env("PANETEAM_ROOT="+tm.Root, "PANETEAM_TEAM="+tm.Name, "PANETEAM_AGENT="+c.agent)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("PANETEAM_AGENT=%q: %v, %s; want a refusal saying %q", c.agent, err, out, c.want)
		}
	}
}

// Without its server program beside it or on PATH, 'paneteam mcp' says
// how to install it.
func TestMCPSaysWhereTheServerIs(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "paneteam")
	b, err := os.ReadFile(testutil.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteExecutable(t, bin, b)
	cmd := exec.Command(bin, "mcp")
	cmd.Env = testutil.Env("PATH=" + dir)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "go install github.com/paneteam/paneteam/cmd/paneteam-mcp@latest") {
		t.Errorf("paneteam mcp without its server: %v %s", err, out)
	}
}

// In an inbox Claude Code reads itself (here Claude Code's own
// teammate's), read_inbox shows the messages but marks none read: Claude
// Code delivers only unread ones (docs/PROTOCOL.md §6).
func TestReadInboxLeavesClaudesInboxUnread(t *testing.T) {
	root := testutil.Root(t)
	_, lead := testutil.LiveClaudeLead(t)
	testutil.ClaudeTeam(t, root, "session-0a1b2c3d", lead, testutil.ClaudeInProcessTeammate("bob"))
	tm, _, err := team.Open(root, "session-0a1b2c3d")
	if err != nil {
		t.Fatal(err)
	}
	in := mailbox.New(tm.InboxPath("bob"), lockfile.Options{})
	if err := in.Send(context.Background(), mailbox.Message{From: "team-lead", Text: "hello", Timestamp: mailbox.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	s := serve(t, tm, "bob")
	var got struct{ Unread int }
	mustCall(t, s, "read_inbox", map[string]any{}, &got)
	if msgs := inbox(t, tm, "bob"); got.Unread != 1 || len(msgs) != 1 || msgs[0].Read {
		t.Fatalf("read_inbox showed %d unread; bob's inbox now %+v, want the message still unread", got.Unread, msgs)
	}
}

// A row someone else wrote in config.json does not make an identity the
// server acts as when its name is the lead's in another spelling
// ("team.lead" reads team-lead.json) or shares another member's inbox.
func TestResolveRefusesOneNameInTwoSpellings(t *testing.T) {
	tm := teamWith(t, "co-der")
	_, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		c.Members = append(c.Members,
			team.Member{Name: "team.lead", AgentID: "team.lead@review", Cwd: tm.Root},
			team.Member{Name: "co.der", AgentID: "co.der@review", Cwd: tm.Root})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"team.lead", "co.der", "co-der"} {
		env := map[string]string{"PANETEAM_ROOT": tm.Root, "PANETEAM_TEAM": tm.Name, "PANETEAM_AGENT": agent}
		id, err := mcpserver.Resolve(func(k string) string { return env[k] })
		if err == nil {
			t.Errorf("PANETEAM_AGENT=%s: acts as %q; want refused (one inbox, two names)", agent, id.Agent)
		}
	}
}
