package hostile

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// command is one thing a person or an agent does to the team.
type command struct {
	key  string
	args []string // paneteam's arguments; nil for an MCP tool
	// tool, agent: an MCP tool called as agent through 'paneteam mcp'.
	tool, agent string
	// good is text the command shows of the team's good entries.
	good string
	// endless commands run until stopped: they are stopped at bound, and
	// that is no failure.
	endless bool
	// watcher commands wait for their inbox to be readable: stopped at
	// bound where a case breaks them.
	watcher bool
	bound   time.Duration
}

// bound is how long any command may take here, the 50 MB inbox included:
// long enough for a slow machine, short enough that a hang shows.
const bound = 60 * time.Second

func pt(args ...string) []string { return append(args, "--team", teamName) }

// commands reads the team every way paneteam can, readers first, then
// those that write, and the ones that take bob out of the team last.
var commands = []command{
	{key: "status", args: pt("status"), good: "alice"},
	{key: "status --json", args: pt("status", "--json"), good: "alice"},
	{key: "statusline", args: pt("status", "--format", "tmux")},
	{key: "inbox bob", args: pt("inbox", "--name", "bob"), good: goodUnread},
	{key: "inbox bob --json", args: pt("inbox", "--name", "bob", "--json"), good: goodUnread},
	{key: "inbox alice", args: pt("inbox", "--name", "alice"), good: goodAlice},
	{key: "inbox --archived", args: pt("inbox", "--name", "bob", "--archived"), good: goodOld},
	{key: "inbox-watch --once", args: pt("inbox-watch", "--name", "alice", "--once"), good: goodAlice,
		watcher: true, bound: 10 * time.Second},
	{key: "requests", args: pt("requests")},
	{key: "requests --json", args: pt("requests", "--json")},
	{key: "show", args: pt("show", "no-such-request")},
	{key: "logs", args: pt("logs", "--name", "dave")},
	{key: "task list", args: pt("task", "list"), good: goodTask},
	{key: "task list --json", args: pt("task", "list", "--json"), good: goodTask},
	{key: "task get 1", args: pt("task", "get", "1")},
	{key: "task get 1 --json", args: pt("task", "get", "1", "--json")},
	{key: "task get 3", args: pt("task", "get", "3")},
	{key: "task get 3 --json", args: pt("task", "get", "3", "--json")},
	{key: "task get 2", args: pt("task", "get", "2"), good: goodTask},
	{key: "mcp read_inbox", tool: "read_inbox", agent: "bob", good: goodUnread},
	{key: "mcp list_tasks", tool: "list_tasks", agent: "alice", good: goodTask},
	{key: "wait", args: pt("wait", "--all", "--until", "idle", "--timeout", "1s")},
	{key: "monitor", args: pt("monitor"), endless: true, bound: 1500 * time.Millisecond},
	{key: "cleanup --dry-run --force", args: pt("cleanup", "--dry-run", "--force")},
	{key: "cleanup --orphans --dry-run", args: []string{"cleanup", "--orphans", "--dry-run"}},
	{key: "inbox --mark-read", args: pt("inbox", "--name", "bob", "--unread", "--mark-read"), good: goodUnread},
	{key: "send bob", args: pt("send", "--to", "bob", "--from", "alice", "sent into the hostile folder")},
	{key: "send alice", args: pt("send", "--to", "alice", "--from", "bob", "a good inbox still takes mail")},
	{key: "task update 1", args: pt("task", "update", "1", "--note", "looked at")},
	{key: "task claim 2", args: pt("task", "claim", "2", "--owner", "alice")},
	{key: "shutdown", args: pt("shutdown", "--name", "bob", "--timeout", "1s")},
	{key: "kill-pane", args: pt("kill-pane", "--name", "bob")},
}

// do runs c against f.
func (f *folder) do(c command) result {
	f.t.Helper()
	b := c.bound
	if b == 0 {
		b = bound
	}
	if c.tool != "" {
		return f.mcp(b, c.tool, c.agent)
	}
	r := f.run(b, c.args...)
	if c.endless && r.timedOut {
		r.timedOut, r.code = false, 0
	}
	return r
}

// mcp starts 'paneteam mcp' as agent, as an agent CLI would, calls tool
// once and reports its text as stdout (an error answer as stderr, code 1)
// and the server's own stderr. A server that does not start is a result,
// not the end of the case.
func (f *folder) mcp(b time.Duration, tool, agent string) result {
	f.t.Helper()
	testutil.MCPBinary(f.t)
	ctx, cancel := context.WithTimeout(context.Background(), b)
	defer cancel()
	cmd := exec.Command(testutil.Binary(f.t), "mcp")
	cmd.Env = append(append([]string{}, f.env...), "PANETEAM_TEAM="+teamName, "PANETEAM_AGENT="+agent)
	var serverErr strings.Builder
	cmd.Stderr = &serverErr
	c := mcp.NewClient(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return result{stderr: "connect: " + err.Error() + "\n" + serverErr.String(), code: 1, timedOut: ctx.Err() != nil}
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	var r result
	switch {
	case err != nil:
		r = result{stderr: err.Error(), code: 1}
	default:
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		r.stdout = text.String()
		if res.IsError {
			r.stdout, r.stderr, r.code = "", text.String(), 1
		}
	}
	r.timedOut = ctx.Err() != nil
	s.Close()
	r.stderr += serverErr.String()
	return r
}
