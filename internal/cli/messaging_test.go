package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// msgTeam makes team "t" with members alice and bob and returns its root,
// the variables to run paneteam with, and the team.
func msgTeam(t *testing.T) (string, map[string]string, team.Team) {
	t.Helper()
	root, vars := ptRootVars(t)
	if _, errs, code := ptRun(t, vars, "", "team-create", "t"); code != 0 {
		t.Fatal(errs)
	}
	ptAddMember(t, root, "t", "alice")
	ptAddMember(t, root, "t", "bob")
	tm, _, err := team.Open(root, "t")
	if err != nil {
		t.Fatal(err)
	}
	return root, vars, tm
}

func inboxOf(t *testing.T, tm team.Team, name string) []mailbox.Message {
	t.Helper()
	msgs, err := mailbox.New(tm.InboxPath(name), lockOptsDefault()).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// jsonKeys lists an object's keys in the order they are written.
func jsonKeys(t *testing.T, text string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", text)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// Every protocol message send writes has the fields of docs/PROTOCOL.md §8, in Claude
// Code's order, inside the text of an unread message from the sender.
func TestSendProtocolMessagesHaveProtocolFields(t *testing.T) {
	_, vars, tm := msgTeam(t)
	// A permission_request waiting in the lead's inbox, to be allowed.
	req := `{"type":"permission_request","request_id":"perm-1","agent_id":"alice@t","tool_name":"Bash",` +
		`"tool_use_id":"tu1","description":"list files","input":{"command":"ls -la"},"permission_suggestions":[]}`
	if _, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--to", "team-lead", "--from", "alice", req); code != 0 {
		t.Fatal(errs)
	}
	cases := []struct {
		args []string
		keys string
		want map[string]any
	}{
		{[]string{"--type", "shutdown_request", "--reason", "done"},
			"type requestId from reason timestamp", map[string]any{"from": "team-lead", "reason": "done"}},
		{[]string{"--type", "shutdown_approved", "--request-id", "r1"},
			"type requestId from timestamp", map[string]any{"requestId": "r1"}},
		{[]string{"--type", "shutdown_rejected", "--request-id", "r1", "--reason", "busy"},
			"type requestId from reason timestamp", map[string]any{"reason": "busy"}},
		{[]string{"--type", "plan_approval_response", "--request-id", "p1", "--approve", "--mode", "acceptEdits"},
			"type requestId approved timestamp permissionMode", map[string]any{"approved": true, "permissionMode": "acceptEdits"}},
		{[]string{"--type", "plan_approval_response", "--request-id", "p1", "--reject", "--feedback", "add tests"},
			"type requestId approved feedback timestamp", map[string]any{"approved": false, "feedback": "add tests"}},
		{[]string{"--type", "permission_response", "--request-id", "perm-1", "--allow"},
			"type request_id subtype response", map[string]any{"subtype": "success",
				"response": map[string]any{"updated_input": map[string]any{"command": "ls -la"}, "permission_updates": []any{}}}},
		{[]string{"--type", "permission_response", "--request-id", "perm-2", "--deny", "--reason", "no"},
			"type request_id subtype error", map[string]any{"subtype": "error", "error": "no"}},
		{[]string{"--type", "mode_set_request", "--mode", "plan"},
			"type mode from", map[string]any{"mode": "plan", "from": "team-lead"}},
		{[]string{"--type", "idle_notification", "--task-id", "4", "--completed-status", "resolved", "--summary", "did it"},
			"type from timestamp idleReason summary completedTaskId completedStatus",
			map[string]any{"idleReason": "available", "completedTaskId": "4", "summary": "did it"}},
		{[]string{"--type", "task_assignment", "--task-id", "7", "--subject", "fix login", "--description", "the form"},
			"type taskId subject description assignedBy timestamp", map[string]any{"taskId": "7", "assignedBy": "team-lead"}},
	}
	for i, c := range cases {
		args := append([]string{"send", "--team", "t", "--to", "alice"}, c.args...)
		if _, errs, code := ptRun(t, vars, "", args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		msgs := inboxOf(t, tm, "alice")
		if len(msgs) != i+1 {
			t.Fatalf("%v: inbox has %d messages, want %d", c.args, len(msgs), i+1)
		}
		m := msgs[i]
		if m.From != "team-lead" || m.Read {
			t.Fatalf("%v: message %+v", c.args, m)
		}
		if got := strings.Join(jsonKeys(t, m.Text), " "); got != c.keys {
			t.Errorf("%s: fields %q, want %q", c.args[1], got, c.keys)
		}
		var fields map[string]any
		json.Unmarshal([]byte(m.Text), &fields)
		if fields["type"] != c.args[1] {
			t.Errorf("type %v, want %s", fields["type"], c.args[1])
		}
		for k, v := range c.want {
			if fmt.Sprint(fields[k]) != fmt.Sprint(v) {
				t.Errorf("%s: %s = %v, want %v", c.args[1], k, fields[k], v)
			}
		}
		if ts, ok := fields["timestamp"].(string); ok && ts != m.Timestamp {
			t.Errorf("%s: inner timestamp %s differs from the message's %s", c.args[1], ts, m.Timestamp)
		}
	}
}

func TestShutdownRequestPrintsItsNewRequestID(t *testing.T) {
	_, vars, tm := msgTeam(t)
	out, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--broadcast", "--type", "shutdown_request")
	if code != 0 {
		t.Fatal(errs)
	}
	ids := strings.Fields(out)
	re := regexp.MustCompile(`^shutdown-\d{13}@(alice|bob)$`)
	if len(ids) != 2 || !re.MatchString(ids[0]) || !re.MatchString(ids[1]) {
		t.Fatalf("printed %q, want one shutdown-<ms>@<name> per teammate", out)
	}
	for _, id := range ids {
		name := id[strings.Index(id, "@")+1:]
		p, ok := mailbox.Parse(inboxOf(t, tm, name)[0].Text)
		if r, isReq := p.Value.(*mailbox.ShutdownRequest); !ok || !isReq || r.RequestID != id {
			t.Errorf("%s's inbox does not hold request %s: %+v", name, id, p)
		}
	}
	if msgs := inboxOf(t, tm, "team-lead"); len(msgs) != 0 {
		t.Fatalf("broadcast reached the sender: %+v", msgs)
	}
}

func TestBroadcastReachesEveryoneButTheSender(t *testing.T) {
	_, vars, tm := msgTeam(t)
	out, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--from", "alice", "--broadcast", "--json", "lunch")
	if code != 0 {
		t.Fatal(errs)
	}
	var sent []struct {
		To      string          `json:"to"`
		Message mailbox.Message `json:"message"`
	}
	if err := json.Unmarshal([]byte(out), &sent); err != nil || len(sent) != 2 {
		t.Fatalf("--json printed %q (%v), want two deliveries", out, err)
	}
	for _, name := range []string{"team-lead", "bob"} {
		msgs := inboxOf(t, tm, name)
		if len(msgs) != 1 || msgs[0].Text != "lunch" || msgs[0].From != "alice" || msgs[0].Color != "red" {
			t.Errorf("%s got %+v, want alice's lunch in her colour", name, msgs)
		}
	}
	if len(inboxOf(t, tm, "alice")) != 0 {
		t.Fatal("broadcast reached its sender")
	}
	// --to '*' is a broadcast, as Claude Code's SendMessage spells it.
	if _, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--from", "bob", "--to", "*", "soup"); code != 0 {
		t.Fatal(errs)
	}
	if got := msgTexts(inboxOf(t, tm, "alice")) + "|" + msgTexts(inboxOf(t, tm, "bob")); got != "soup|lunch" {
		t.Errorf("--to '*' from bob: alice|bob hold %q, want soup|lunch (not his own)", got)
	}
}

func TestSendRefusalsNameTheFixAndWriteNothing(t *testing.T) {
	_, vars, tm := msgTeam(t)
	cases := []struct {
		args    []string
		code    int
		mention []string
	}{
		{[]string{"--to", "mallory", "hi"}, 1, []string{"team-lead, alice, bob", "--create-inbox"}},
		{[]string{"--to", "alice", "--broadcast", "hi"}, 2, []string{"not both"}},
		{[]string{"--to", "alice", "--type", "nonsense"}, 2, []string{"shutdown_request"}},
		{[]string{"--to", "alice", "--type", "mode_set_request", "--mode", "plan", "--reason", "x"}, 2, []string{"--reason", "--mode"}},
		{[]string{"--to", "alice", "--type", "mode_set_request", "--mode", "yolo"}, 2, []string{"acceptEdits"}},
		{[]string{"--to", "alice", "--type", "shutdown_approved"}, 2, []string{"request id"}},
		{[]string{"--to", "alice", "--type", "plan_approval_response", "--request-id", "p", "--approve", "--reject"}, 2, []string{"not both"}},
		{[]string{"--to", "alice", "--type", "permission_response", "--request-id", "p", "--allow", "--deny"}, 2, []string{"--allow or --deny, not both"}},
		{[]string{"--to", "alice", "--type", "permission_response", "--request-id", "nope", "--allow"}, 1, []string{"--input"}},
		{[]string{"--to", "alice", "--request-id", "x", "hi"}, 2, []string{"--type"}},
		{[]string{"--to", "alice", "--color", "mauve", "hi"}, 2, []string{"red"}},
		{[]string{"--to", "alice", "--type", "shutdown_request", "extra text"}, 2, []string{"TEXT"}},
	}
	for _, c := range cases {
		_, errs, code := ptRun(t, vars, "", append([]string{"send", "--team", "t"}, c.args...)...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, errs)
		}
		for _, m := range c.mention {
			if !strings.Contains(errs, m) {
				t.Errorf("%v: stderr %q should mention %q", c.args, errs, m)
			}
		}
	}
	entries, _ := os.ReadDir(tm.InboxDir())
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			t.Fatalf("a refused send wrote %s", e.Name())
		}
	}
	// --create-inbox does what it says.
	if _, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--to", "mallory", "--create-inbox", "hi"); code != 0 {
		t.Fatal(errs)
	}
	if msgs := inboxOf(t, tm, "mallory"); len(msgs) != 1 {
		t.Fatalf("mallory's inbox: %+v", msgs)
	}
}

func TestSendLargeTextArrivesWhole(t *testing.T) {
	_, vars, tm := msgTeam(t)
	big := strings.Repeat("ünïcödé line of a long diff\n", 40000) // ~1.2 MB
	if _, errs, code := ptRun(t, vars, big, "send", "--team", "t", "--to", "bob", "-"); code != 0 {
		t.Fatal(errs)
	}
	msgs := inboxOf(t, tm, "bob")
	if len(msgs) != 1 || msgs[0].Text != strings.TrimSuffix(big, "\n") {
		t.Fatalf("large message changed on the way (%d messages)", len(msgs))
	}
}

// ptRunTTY runs paneteam in-process as if stdout were a terminal (or not).
func ptRunTTY(t *testing.T, vars map[string]string, tty bool, args ...string) string {
	t.Helper()
	c := pt(t, vars)
	c.TTY = tty
	return c.Must(t, args...)
}

func TestInboxIsReadableForPeopleAndExactForScripts(t *testing.T) {
	_, vars, _ := msgTeam(t)
	ptRun(t, vars, "", "send", "--team", "t", "--to", "team-lead", "--from", "alice", "--summary", "status", "line one\nline two")
	ptRun(t, vars, "", "send", "--team", "t", "--to", "team-lead", "--from", "bob", "--type", "idle_notification")
	args := []string{"inbox", "--team", "t"}

	piped := ptRunTTY(t, vars, false, args...)
	if strings.Contains(piped, "\x1b[") {
		t.Fatalf("piped output has colour codes: %q", piped)
	}
	if !regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z  alice  \(unread\)  status$`).MatchString(piped) ||
		!strings.Contains(piped, "    line one\n    line two\n") || !strings.Contains(piped, "[idle: available]") {
		t.Fatalf("piped listing:\n%s", piped)
	}

	term := ptRunTTY(t, vars, true, args...)
	if !strings.Contains(term, "\x1b[1;31malice\x1b[0m") || !strings.Contains(term, "just now") {
		t.Fatalf("terminal listing lacks alice in red and a relative time:\n%q", term)
	}
	vars["NO_COLOR"] = "1"
	if noColor := ptRunTTY(t, vars, true, args...); strings.Contains(noColor, "\x1b[") {
		t.Fatalf("NO_COLOR ignored: %q", noColor)
	}

	var msgs []mailbox.Message
	if err := json.Unmarshal([]byte(ptRunTTY(t, vars, true, append(args, "--json")...)), &msgs); err != nil || len(msgs) != 2 {
		t.Fatalf("--json: %v %+v", err, msgs)
	}
}

func TestInboxMarkReadAndArchive(t *testing.T) {
	_, vars, tm := msgTeam(t)
	for _, s := range []string{"one", "two", "three"} {
		ptRun(t, vars, "", "send", "--team", "t", "--to", "bob", s)
	}
	out := ptRunTTY(t, vars, false, "inbox", "--team", "t", "--name", "bob", "--unread", "--last", "2", "--mark-read", "--json")
	var shown []mailbox.Message
	json.Unmarshal([]byte(out), &shown)
	if texts := msgTexts(shown); texts != "two,three" {
		t.Fatalf("--last 2 showed %q", texts)
	}
	if left := msgTexts(inboxOf(t, tm, "bob")); left != "one" {
		t.Fatalf("inbox after --mark-read holds %q, want the unshown one", left)
	}
	var arch []mailbox.Message
	json.Unmarshal([]byte(ptRunTTY(t, vars, false, "inbox", "--team", "t", "--name", "bob", "--archived", "--json")), &arch)
	if msgTexts(arch) != "two,three" || !arch[0].Read {
		t.Fatalf("--archived shows %+v", arch)
	}
	if _, errs, code := ptRun(t, vars, "", "inbox", "--team", "t", "--name", "nobody"); code != 1 || !strings.Contains(errs, "alice") {
		t.Fatalf("unknown name: exit %d %q", code, errs)
	}
}

func msgTexts(ms []mailbox.Message) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.Text)
	}
	return strings.Join(s, ",")
}

// ptCmd is the real binary run against root.
func ptCmd(t *testing.T, root string, args ...string) *exec.Cmd {
	cmd := exec.Command(testutil.Binary(t), args...)
	cmd.Env = testutil.Env("PANETEAM_ROOT="+root, "NO_COLOR=1")
	return cmd
}

// "help" and "h" are messages like any other: a send of one delivers it
// rather than printing send's help and exiting 0 with nothing sent. Help
// is still `paneteam help send` or `send --help`.
func TestSendingTheWordHelpSendsIt(t *testing.T) {
	_, vars, tm := msgTeam(t)
	for _, text := range []string{"help", "h"} {
		if out, errs, code := ptRun(t, vars, "", "send", "--team", "t", "--to", "bob", "--from", "alice", text); code != 0 {
			t.Fatalf("send %q: exit %d: %s%s", text, code, out, errs)
		}
	}
	var got []string
	for _, m := range inboxOf(t, tm, "bob") {
		got = append(got, m.Text)
	}
	if strings.Join(got, ",") != "help,h" {
		t.Fatalf("bob's inbox holds %q", got)
	}
	for _, args := range [][]string{{"help", "send"}, {"send", "--help"}} {
		out, errs, code := ptRun(t, vars, "", args...)
		if code != 0 || !strings.Contains(out, "paneteam send - append a message") {
			t.Fatalf("paneteam %v: exit %d: %s%s", args, code, out, errs)
		}
	}
}
