// Package frontends checks that paneteam's front ends share one rule set:
// the same operations by the same teammate, through 'paneteam task' and
// through the MCP server's tools, leave the same files.
package frontends

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// taskOp is one task operation by the teammate, as each front end says it.
type taskOp struct {
	cli  []string       // 'paneteam task ...' arguments after --team
	tool string         // the MCP tool
	args map[string]any // and its arguments
}

var taskOps = []taskOp{
	{[]string{"claim", "1"}, "claim_task", map[string]any{"task_id": "1"}},
	{[]string{"update", "1", "--note", "parser in parse.go"}, "update_task", map[string]any{"task_id": "1", "note": "parser in parse.go"}},
	{[]string{"update", "1", "--status", "completed"}, "update_task", map[string]any{"task_id": "1", "status": "completed"}},
	// Starting an unowned task: the teammate becomes its owner and is told.
	{[]string{"update", "3", "--status", "in_progress"}, "update_task", map[string]any{"task_id": "3", "status": "in_progress"}},
	{[]string{"claim", "2"}, "claim_task", map[string]any{"task_id": "2"}},
	// Another member's task: its owner stays, nobody is told.
	{[]string{"update", "4", "--status", "completed", "--note", "done by coder"}, "update_task",
		map[string]any{"task_id": "4", "status": "completed", "note": "done by coder"}},
	// Back to pending: the owner stays.
	{[]string{"update", "2", "--status", "pending"}, "update_task", map[string]any{"task_id": "2", "status": "pending"}},
}

// crew is a team of coder and tester with four tasks: 2 waits for 1, 4 is
// tester's.
func crew(t *testing.T) team.Team {
	t.Helper()
	tm := teamtest.New(t, "crew", team.CreateOptions{}, teamtest.Named("coder", "tester")...)
	l := tm.Tasks(lockfile.Options{})
	ctx := context.Background()
	for _, nt := range []team.NewTask{
		{Subject: "Write the parser", Description: "parse.go"},
		{Subject: "Test the parser", BlockedBy: []string{"1"}},
		{Subject: "Write the docs"},
		{Subject: "Review the API", Owner: "tester"},
	} {
		if _, err := l.Create(ctx, nt); err != nil {
			t.Fatal(err)
		}
	}
	return tm
}

func TestTaskOperationsLeaveTheSameFilesThroughEitherFrontEnd(t *testing.T) {
	bin := testutil.Binary(t)

	viaCLI := crew(t)
	for _, op := range taskOps {
		args := append([]string{"task"}, op.cli[0], "--team", viaCLI.Name)
		cmd := exec.Command(bin, append(args, op.cli[1:]...)...)
		cmd.Env = testutil.Env("PANETEAM_ROOT="+viaCLI.Root, "PANETEAM_AGENT=coder")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("paneteam %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, out)
		}
	}

	viaMCP := crew(t)
	s := testutil.ServeMCP(t, viaMCP.Root, viaMCP.Name, "coder")
	for _, op := range taskOps {
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: op.tool, Arguments: op.args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %+v", op.tool, op.args, err, res)
		}
	}

	cli, mcpFiles := teamFiles(t, viaCLI), teamFiles(t, viaMCP)
	names := map[string]bool{}
	for n := range cli {
		names[n] = true
	}
	for n := range mcpFiles {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		if cli[n] != mcpFiles[n] {
			t.Errorf("%s differs:\nthrough paneteam task:\n%s\nthrough the MCP server:\n%s", n, cli[n], mcpFiles[n])
		}
	}

	// And the files say what Claude Code's rules say.
	want := map[string]string{"1": "coder completed", "2": "coder pending", "3": "coder in_progress", "4": "tester completed"}
	for id, w := range want {
		tk, err := viaCLI.Tasks(lockfile.Options{}).Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.Owner + " " + tk.Status; got != w {
			t.Errorf("task %s: %s, want %s", id, got, w)
		}
	}
	if in := cli["teams/crew/inboxes/coder.json"]; strings.Count(in, `\"type\":\"task_assignment\"`) != 3 {
		t.Errorf("coder's inbox holds %d task_assignment notices, want 3 (claims of 1 and 2, the start of 3):\n%s",
			strings.Count(in, `\"type\":\"task_assignment\"`), in)
	}
	if in, ok := cli["teams/crew/inboxes/tester.json"]; ok {
		t.Errorf("tester was told something: %s", in)
	}
}

var (
	timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	messageID = regexp.MustCompile(`"msg_id": "[0-9a-f-]{36}"`)
)

// teamFiles is every task file and inbox of tm, by path below its root,
// with timestamps and message ids masked; locks and the config (whose creation time and
// session differ) are left out.
func teamFiles(t *testing.T, tm team.Team) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{tm.TasksDir(), filepath.Dir(tm.InboxPath("x"))} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(path, ".lock") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(tm.Root, path)
			out[rel] = messageID.ReplaceAllString(timestamp.ReplaceAllString(string(b), "<time>"), `"msg_id": "<id>"`)
			if strings.HasSuffix(rel, ".json") && !json.Valid(b) {
				return fmt.Errorf("%s is not JSON", rel)
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return out
}
