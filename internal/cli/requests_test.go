package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// The §9 example input and its digest (docs/PROTOCOL.md).
const (
	reqInput  = `{"timeout":120000,"description":"Run tests","command":"npm test"}`
	reqDigest = "e4ac10ba6550f9f50de70a5b32c709be470c91397479351792e6c34b666633b1"
)

// reqTeam makes team "crew" with alice and bob and returns its root and
// the variables that point paneteam at it.
func reqTeam(t *testing.T) (string, map[string]string) {
	t.Helper()
	root, vars := ptRootVars(t)
	if _, errs, code := ptRun(t, vars, "", "team-create", "crew"); code != 0 {
		t.Fatal(errs)
	}
	ptAddMember(t, root, "crew", "alice")
	ptAddMember(t, root, "crew", "bob")
	return root, vars
}

func permText(id, agent, input string) string {
	return `{"type":"permission_request","request_id":"` + id + `","agent_id":"` + agent +
		`","tool_name":"Bash","tool_use_id":"toolu_01","description":"Run tests","input":` + input + `,"permission_suggestions":[]}`
}

func planText(id, from, plan string) string {
	b, _ := json.Marshal(map[string]string{"type": "plan_approval_request", "from": from, "timestamp": "2026-01-01T00:00:00.000Z",
		"planFilePath": "/p.md", "planContent": plan, "requestId": id})
	return string(b)
}

// leadInbox writes the lead's inbox as a teammate's Claude Code leaves it.
func leadInbox(t *testing.T, root string, msgs ...mailbox.Message) {
	t.Helper()
	path := team.Team{Root: root, Name: "crew"}.InboxPath(team.LeadName)
	b, _ := json.MarshalIndent(msgs, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func teammateInbox(t *testing.T, root, name string) []mailbox.Message {
	t.Helper()
	msgs, err := mailbox.New(team.Team{Root: root, Name: "crew"}.InboxPath(name), lockfile.Options{}).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func req(from, text string) mailbox.Message {
	return mailbox.Message{From: from, Text: text, Timestamp: mailbox.Timestamp(time.Now().Add(-2 * time.Minute))}
}

func TestRequestsShowsWholeCommandsWithEscapesVisible(t *testing.T) {
	root, vars := reqTeam(t)
	cmd := "echo ok\x1b[2K\rrm -rf ~ && " + strings.Repeat("a", 300)
	in, _ := json.Marshal(map[string]string{"command": cmd})
	leadInbox(t, root,
		req("alice", permText("perm-1767225600000-aaaaaaa", "alice", string(in))),
		req("bob", planText("plan_approval-1767225600001@bob@crew", "bob", "intro\n# Ship \x1b]0;x\x07it\n1. a\n")),
	)
	out, errs, code := ptRun(t, vars, "", "requests", "--team", "crew")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", out)
	}
	want := `perm-1767225600000-aaaaaaa  alice  permission  2m ago  Bash: $'echo ok\x1b[2K\rrm -rf ~ && ` + strings.Repeat("a", 300) + "'"
	if lines[0] != want {
		t.Errorf("line\n got %q\nwant %q", lines[0], want)
	}
	if want := `plan_approval-1767225600001@bob@crew  bob  plan  2m ago  plan "$'Ship \x1b]0;x\x07it'" (3 lines, 27 bytes)`; lines[1] != want {
		t.Errorf("line\n got %q\nwant %q", lines[1], want)
	}
	if strings.ContainsAny(out, "\x1b\r\x07") {
		t.Errorf("raw control characters reached the terminal: %q", out)
	}

	out, _, code = ptRun(t, vars, "", "requests", "--team", "crew", "--json")
	var got []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || len(got) != 2 || got[0]["input"].(map[string]any)["command"] != cmd {
		t.Fatalf("--json: exit %d %q", code, out)
	}
}

// A command holding a real newline (or tab) and one holding a typed
// backslash-n (or backslash-t) are different commands: neither the one-line
// list nor show may print them alike.
func TestRequestsTellRealEscapesFromTypedOnes(t *testing.T) {
	root, vars := reqTeam(t)
	cmds := []string{"echo a\nb", `echo a\nb`, "printf 'x\ty'", `printf 'x\ty'`}
	var msgs []mailbox.Message
	for i, c := range cmds {
		in, _ := json.Marshal(map[string]string{"command": c})
		msgs = append(msgs, req("alice", permText(fmt.Sprintf("perm-176722560000%d-aaaaaaa", i), "alice", string(in))))
	}
	leadInbox(t, root, msgs...)
	out, errs, code := ptRun(t, vars, "", "requests", "--team", "crew")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{`Bash: $'echo a\nb'`, `Bash: echo a\nb`, `Bash: $'printf \'x\ty\''`, `Bash: printf 'x\ty'`}
	if len(lines) != len(want) {
		t.Fatalf("want %d lines, got %q", len(want), out)
	}
	for i, w := range want {
		if !strings.HasSuffix(lines[i], "  "+w) {
			t.Errorf("line %d\n got %q\nwant it to end in %q", i, lines[i], w)
		}
	}
	if strings.ContainsAny(out, "\t") {
		t.Errorf("a raw tab reached the list: %q", out)
	}
	shown := map[string]int{}
	for i := range cmds {
		out, errs, code := ptRun(t, vars, "", "show", fmt.Sprintf("perm-176722560000%d-aaaaaaa", i), "--team", "crew")
		if code != 0 {
			t.Fatalf("show %d: exit %d %s", i, code, errs)
		}
		_, cmd, _ := strings.Cut(out, "command:\n")
		cmd, _, _ = strings.Cut(cmd, "input:\n")
		if j, seen := shown[cmd]; seen {
			t.Errorf("show prints commands %q and %q alike:\n%s", cmds[j], cmds[i], cmd)
		}
		shown[cmd] = i
	}
}

func TestApproveDenyAndShowFromTheShell(t *testing.T) {
	root, vars := reqTeam(t)
	plan := "# Plan\n\n1. Edit main.go\n2. Run tests\n"
	leadInbox(t, root,
		req("alice", permText("perm-1767225600000-aaaaaaa", "alice", reqInput)),
		req("bob", planText("plan_approval-1767225600001@bob@crew", "bob", plan)),
	)
	out, errs, code := ptRun(t, vars, "", "show", "plan_approval-17", "--team", "crew")
	if code != 0 || !strings.Contains(out, "plan:\n    # Plan\n    \n    1. Edit main.go\n    2. Run tests\n") {
		t.Fatalf("show: exit %d %q %s", code, out, errs)
	}
	out, errs, code = ptRun(t, vars, "", "approve", "perm-17", "--team", "crew")
	if code != 0 || out != "approved perm-1767225600000-aaaaaaa from alice: Bash: npm test\n" {
		t.Fatalf("approve: exit %d %q %s", code, out, errs)
	}
	got := teammateInbox(t, root, "alice")
	if len(got) != 1 || !strings.Contains(got[0].Text, `"input_digest":"`+reqDigest+`"`) || got[0].From != "team-lead" {
		t.Fatalf("alice's inbox: %+v", got)
	}
	_, errs, code = ptRun(t, vars, "", "deny", "perm-1767225600000-aaaaaaa", "--team", "crew")
	if code != ExitFailure || !strings.Contains(errs, "already answered (approved at") {
		t.Fatalf("second answer: exit %d %s", code, errs)
	}
	out, errs, code = ptRun(t, vars, "", "deny", "plan", "--team", "crew", "--feedback", "split step 2", "--json")
	var res struct {
		Response map[string]any `json:"response"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Response["approved"] != false || res.Response["feedback"] != "split step 2" {
		t.Fatalf("deny plan: exit %d %q %s", code, out, errs)
	}
	out, _, code = ptRun(t, vars, "", "show", "perm-1767225600000-aaaaaaa", "--team", "crew")
	if code != 0 || !strings.Contains(out, "state:        answered (approved at") {
		t.Fatalf("show answered: %q", out)
	}
	out, _, _ = ptRun(t, vars, "", "requests", "--team", "crew")
	if out != "" {
		t.Fatalf("answered requests still listed: %q", out)
	}
	// Without an ID, show is still 'bring a hidden pane back'.
	if _, errs, code := ptRun(t, vars, "", "show", "--team", "crew"); code != ExitUsage || !strings.Contains(errs, "--name") {
		t.Fatalf("show without ID: exit %d %s", code, errs)
	}
	// A request is named by its ID, a hidden pane by --name: never both;
	// a wrong --layout is refused before any team is looked for.
	for _, c := range []struct {
		args []string
		say  string
	}{
		{[]string{"perm-1767225600000-aaaaaaa", "--name", "alice", "--team", "crew"}, "not both"},
		{[]string{"perm-1767225600000-aaaaaaa", "perm-1767225600000-bbbbbbb", "--team", "crew"}, "show takes one request ID, got 2"},
		{[]string{"--name", "alice", "--layout", "sideways", "--team", "no-such-team"}, "--layout"},
	} {
		if _, errs, code := ptRun(t, vars, "", append([]string{"show"}, c.args...)...); code != ExitUsage || !strings.Contains(errs, c.say) {
			t.Errorf("show %v: exit %d, stderr %q; want usage saying %q", c.args, code, errs, c.say)
		}
	}
}

func TestApproveUsageAndRefusals(t *testing.T) {
	root, vars := reqTeam(t)
	leadInbox(t, root,
		req("alice", permText("perm-1767225600000-aaaaaaa", "alice", reqInput)),
		req("bob", permText("perm-1767225600000-bbbbbbb", "bob", reqInput)),
	)
	for _, c := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"approve"}, ExitUsage, "give one request ID"},
		{[]string{"approve", "perm-1", "--all"}, ExitUsage, "not both"},
		{[]string{"approve", "perm-nope"}, ExitFailure, `no request "perm-nope" is waiting`},
		{[]string{"approve", "perm-1767225600000"}, ExitFailure, "perm-1767225600000-aaaaaaa  alice"},
		{[]string{"approve", "perm-1767225600000-aaaaaaa", "--mode", "plan"}, ExitFailure, "--mode goes with a plan"},
		// --tool only narrows --all, even given empty.
		{[]string{"approve", "perm-1767225600000-aaaaaaa", "--tool", "Bash"}, ExitUsage, "--tool narrows --all"},
		{[]string{"approve", "perm-1767225600000-aaaaaaa", "--tool="}, ExitUsage, "--tool narrows --all"},
		{[]string{"deny", "perm-1767225600000-aaaaaaa", "perm-1767225600000-bbbbbbb"}, ExitUsage, "give one request ID"},
	} {
		_, errs, code := ptRun(t, vars, "", append(c.args, "--team", "crew")...)
		if code != c.code || !strings.Contains(errs, c.say) {
			t.Errorf("%v: exit %d (want %d), stderr %q should say %q", c.args, code, c.code, errs, c.say)
		}
	}
	out, errs, code := ptRun(t, vars, "", "approve", "--all", "--from", "bob", "--team", "crew")
	if code != 0 || out != "approved perm-1767225600000-bbbbbbb from bob: Bash: npm test\n" {
		t.Fatalf("approve --all --from bob: exit %d %q %s", code, out, errs)
	}
	if len(teammateInbox(t, root, "alice")) != 0 {
		t.Fatal("--from bob answered alice")
	}
}

func TestApproveRefusedInAClaudeLedTeam(t *testing.T) {
	root, vars := reqTeam(t)
	tm := team.Team{Root: root, Name: "crew"}
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		c.SetExtra("leadProcess", json.RawMessage(`{"pid":1,"pidSpace":"h","claimedAt":1}`))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	leadInbox(t, root, req("alice", permText("perm-1767225600000-aaaaaaa", "alice", reqInput)))
	_, errs, code := ptRun(t, vars, "", "approve", "perm-1767225600000-aaaaaaa", "--team", "crew")
	if code != ExitFailure || !strings.Contains(errs, "in that Claude Code session") {
		t.Fatalf("exit %d %s", code, errs)
	}
	if len(teammateInbox(t, root, "alice")) != 0 {
		t.Fatal("answered in a Claude-led team")
	}
}

// TestTwoApproveProcessesWriteOnce races two paneteam processes on each
// of several requests: exactly one answer per request reaches the inbox.
func TestTwoApproveProcessesWriteOnce(t *testing.T) {
	root, _ := reqTeam(t)
	var msgs []mailbox.Message
	const n = 5
	for i := 0; i < n; i++ {
		msgs = append(msgs, req("alice", permText("perm-1767225600000-race00"+string(rune('a'+i)), "alice", reqInput)))
	}
	leadInbox(t, root, msgs...)
	bin := testutil.Binary(t)
	for i := 0; i < n; i++ {
		id := "perm-1767225600000-race00" + string(rune('a'+i))
		var wg sync.WaitGroup
		codes := make([]int, 2)
		outs := make([]string, 2)
		for p := 0; p < 2; p++ {
			wg.Add(1)
			go func(p int) {
				defer wg.Done()
				cmd := exec.Command(bin, "approve", id, "--team", "crew")
				cmd.Env = testutil.Env("PANETEAM_ROOT=" + root)
				b, err := cmd.CombinedOutput()
				outs[p] = string(b)
				if ee, ok := err.(*exec.ExitError); ok {
					codes[p] = ee.ExitCode()
				} else if err != nil {
					codes[p] = -1
				}
			}(p)
		}
		wg.Wait()
		if codes[0]+codes[1] != 1 {
			t.Fatalf("%s: exit codes %v (want one 0 and one 1): %q", id, codes, outs)
		}
		loser := outs[0]
		if codes[0] == 0 {
			loser = outs[1]
		}
		if !strings.Contains(loser, "already answered") {
			t.Fatalf("the second process did not say why: %q", loser)
		}
	}
	if got := len(teammateInbox(t, root, "alice")); got != n {
		t.Fatalf("alice got %d answers to %d requests", got, n)
	}
}

func TestRequestsWatchStreamsJSONLines(t *testing.T) {
	root, _ := reqTeam(t)
	leadInbox(t, root, req("alice", permText("perm-1767225600000-aaaaaaa", "alice", reqInput)))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testutil.Binary(t), "requests", "--team", "crew", "--watch", "--json", "--poll", "100ms")
	cmd.Env = testutil.Env("PANETEAM_ROOT=" + root)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	next := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("watch ended: %v", lines.Err())
		}
		var v map[string]any
		if err := json.Unmarshal(lines.Bytes(), &v); err != nil {
			t.Fatalf("not one JSON object per line: %q", lines.Text())
		}
		return v
	}
	if v := next(); v["id"] != "perm-1767225600000-aaaaaaa" || v["subject"] != "Bash: npm test" {
		t.Fatalf("first line %v", v)
	}
	in := mailbox.New(team.Team{Root: root, Name: "crew"}.InboxPath(team.LeadName), lockfile.Options{})
	if err := in.Send(ctx, req("bob", planText("plan_approval-1767225600001@bob@crew", "bob", "# P\n"))); err != nil {
		t.Fatal(err)
	}
	if v := next(); v["id"] != "plan_approval-1767225600001@bob@crew" || v["kind"] != "plan" {
		t.Fatalf("second line %v", v)
	}
}
