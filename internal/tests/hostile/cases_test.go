package hostile

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Where the team's files are, from the root.
const (
	configRel    = "teams/" + teamName + "/config.json"
	inboxesRel   = "teams/" + teamName + "/inboxes"
	inboxRel     = inboxesRel + "/bob.json"
	archiveRel   = inboxesRel + "/bob.archive.jsonl"
	taskDirRel   = "tasks/" + teamName
	taskRel      = taskDirRel + "/1.json"
	newTaskRel   = taskDirRel + "/3.json"
	entryStamp   = "2026-03-01T10:00:00.000Z"
	escapes      = "\x1b]52;c;cGFuZXRlYW0=\x07\x1b]0;owned\x07\x1b[2J\u009b31m\u202eevil"
	escapeMarker = "evil"
)

// hostileCase is one thing a teammate, a tool it runs or another host
// could leave in the team's folders.
type hostileCase struct {
	name  string
	plant func(f *folder)
	// named is the planted file, from the root: every command that
	// refuses because of it names it.
	named string
	// breaks are the commands that read exactly the planted thing: they
	// may refuse (naming it) or lose their good text. Every other command
	// must do what it does in the untouched team.
	breaks []string
	// mustName are commands that must name the planted file even when
	// they succeed (a warning).
	mustName []string
	// pending are commands known to fall short in this case today, with
	// why (who is fixing it): logged, not failed, and failed once they no
	// longer fall short, so the table follows the code.
	pending map[string]string
}

// linkToCopy plants a link at rel to the canary, which first gets rel's
// content: a writer that followed the link would find what it expects
// and carry on, which is what must not happen.
func linkToCopy(rel string) func(f *folder) {
	return func(f *folder) {
		if b, err := os.ReadFile(f.path(rel)); err == nil {
			f.writeCanary(b)
		}
		f.link(rel, f.canary)
	}
}

// linkToOutside plants a link at rel to the folder outside the root.
func linkToOutside(rel string) func(f *folder) {
	return func(f *folder) { f.link(rel, f.outside) }
}

func fifo(rel string) func(f *folder) {
	return func(f *folder) {
		f.t.Helper()
		if err := os.RemoveAll(f.path(rel)); err != nil {
			f.t.Fatal(err)
		}
		if err := syscall.Mkfifo(f.path(rel), 0o600); err != nil {
			f.t.Fatal(err)
		}
	}
}

// entry is an inbox entry in Claude Code's layout, fields as given.
func entry(fields string) string {
	return "  {\n    " + fields + "\n  },\n"
}

// plantEntry puts one entry first in bob's inbox.
func plantEntry(fields string) func(f *folder) {
	return func(f *folder) { f.replace(inboxRel, "[\n", "[\n"+entry(fields)) }
}

func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// bigInbox is bob's inbox grown past 50 MB with read messages, his
// unread one last.
func bigInbox(f *folder) {
	var b strings.Builder
	b.WriteString("[\n")
	line := strings.Repeat("x", 480)
	for i := 0; b.Len() < 50<<20; i++ {
		fmt.Fprintf(&b, "  {\n    \"from\": \"alice\",\n    \"text\": \"%d %s\",\n    \"timestamp\": %q,\n    \"read\": true\n  },\n", i, line, entryStamp)
	}
	fmt.Fprintf(&b, "  {\n    \"from\": \"alice\",\n    \"text\": %q,\n    \"timestamp\": %q,\n    \"read\": false\n  }\n]", goodUnread, entryStamp)
	f.write(inboxRel, []byte(b.String()))
}

// escapingTask is a third task whose subject and description carry
// terminal escapes: a clipboard write, a retitle, a clear, a C1 CSI and
// a right-to-left override.
func escapingTask(f *folder) {
	b, _ := json.MarshalIndent(map[string]any{
		"id": "3", "subject": "subject " + escapes, "description": "description " + escapes,
		"status": "pending", "blocks": []string{}, "blockedBy": []string{}, "owner": "bob",
	}, "", "  ")
	f.write(newTaskRel, b)
}

// task3 reads the task a case adds.
var task3 = []string{"task get 3", "task get 3 --json"}

var inboxReaders = []string{"inbox bob", "inbox bob --json", "mcp read_inbox", "inbox --mark-read", "send bob", "shutdown"}

var cases = []hostileCase{
	// Links in place of files, each to a copy of what it replaced.
	{name: "inbox is a link", plant: linkToCopy(inboxRel), named: inboxRel,
		breaks: inboxReaders, mustName: []string{"status", "status --json"}},
	{name: "archive is a link", plant: linkToCopy(archiveRel), named: archiveRel,
		breaks: []string{"inbox --archived", "inbox --mark-read", "mcp read_inbox"}},
	{name: "task file is a link", plant: linkToCopy(taskRel), named: taskRel,
		breaks: []string{"task get 1", "task get 1 --json", "task update 1"}},
	{name: "config is a link", plant: linkToCopy(configRel), named: configRel,
		breaks: []string{"*"}},
	{name: "inbox lock side file is a link", plant: linkToCopy(inboxesRel + "/.bob.json.flock"), named: inboxesRel + "/.bob.json.flock",
		breaks: []string{"inbox --mark-read", "mcp read_inbox", "send bob", "shutdown"}},
	{name: "config lock side file is a link", plant: linkToCopy("teams/" + teamName + "/.config.json.flock"), named: "teams/" + teamName + "/.config.json.flock",
		breaks: []string{"task claim 2", "shutdown", "kill-pane"}},
	{name: "task list lock is a link", plant: linkToCopy(taskDirRel + "/.lock"), named: taskDirRel + "/.lock",
		breaks: []string{"task update 1", "task claim 2", "kill-pane"}},
	{name: "task list lock side file is a link", plant: linkToCopy(taskDirRel + "/..lock.flock"), named: taskDirRel + "/..lock.flock",
		breaks: []string{"task update 1", "task claim 2", "kill-pane"}},
	{name: "inbox lock is a link to a folder", plant: linkToOutside(inboxRel + ".lock"), named: inboxRel + ".lock",
		breaks: []string{"inbox --mark-read", "mcp read_inbox", "send bob", "shutdown"}},
	{name: "spool is a link to a folder", plant: linkToOutside(inboxesRel + "/.bob.json.spool"), named: inboxesRel + "/.bob.json.spool",
		breaks: []string{"inbox --mark-read", "mcp read_inbox", "send bob", "shutdown"}},
	{name: "inboxes folder is a link", plant: linkToOutside(inboxesRel), named: inboxesRel,
		breaks: []string{"*"}, mustName: []string{"status", "status --json"}},
	{name: "panes folder is a link", plant: linkToOutside("teams/" + teamName + "/panes"), named: "teams/" + teamName + "/panes",
		breaks: []string{"logs"}},
	{name: "agents run folder is a link", plant: linkToOutside("teams/" + teamName + "/agents/bob"), named: "teams/" + teamName + "/agents/bob"},

	// Entries of the wrong shape: one costs only itself.
	{name: "inbox entry of the wrong type",
		plant: plantEntry(`"from": 42,` + "\n    " + `"text": "from a careless tool",` + "\n    " + `"timestamp": "` + entryStamp + `",` + "\n    " + `"read": false`),
		named: inboxRel, mustName: []string{"inbox bob", "status --json"}},
	{name: "member row of the wrong type",
		plant: func(f *folder) {
			f.replace(configRel, "\"members\": [\n", "\"members\": [\n    {\n      \"agentId\": \"carol@crew\",\n      \"name\": 42,\n      \"joinedAt\": \"yesterday\"\n    },\n")
		},
		named: configRel, mustName: []string{"status"}},
	{name: "task of the wrong type",
		plant: func(f *folder) {
			f.write(newTaskRel, []byte(`{"id": "3", "subject": 7, "description": "", "status": "pending", "blocks": [], "blockedBy": []}`))
		},
		named: newTaskRel, mustName: []string{"task list"}, breaks: task3},

	// Huge, deep and not JSON.
	{name: "50 MB inbox", plant: bigInbox},
	{name: "100000-deep value in an inbox entry",
		plant: plantEntry(`"from": "alice",` + "\n    " + `"text": "deep",` + "\n    " + `"timestamp": "` + entryStamp + `",` + "\n    " + `"read": false,` + "\n    " + `"deep": ` + deep(100000)),
		named: inboxRel, mustName: []string{"inbox bob", "status --json"}},
	{name: "100000-deep value in a member row",
		plant: func(f *folder) {
			f.replace(configRel, "\"members\": [\n", "\"members\": [\n    {\n      \"agentId\": \"carol@crew\",\n      \"name\": \"carol\",\n      \"deep\": "+deep(100000)+"\n    },\n")
		},
		named: configRel, mustName: []string{"status"},
		// Read, but not written back: a change to the team is refused.
		breaks: []string{"kill-pane"}},
	{name: "100000-deep value in a task",
		plant: func(f *folder) {
			f.write(newTaskRel, []byte(`{"id": "3", "subject": "deep", "status": "pending", "blocks": [], "blockedBy": [], "deep": `+deep(100000)+`}`))
		},
		named: newTaskRel, mustName: []string{"task list"}, breaks: task3},
	{name: "100000-deep JSON as a message's text",
		plant: plantEntry(`"from": "alice",` + "\n    " + `"text": "` + deep(100000) + `",` + "\n    " + `"timestamp": "` + entryStamp + `",` + "\n    " + `"read": false`)},
	{name: "inbox is not JSON", plant: func(f *folder) { f.write(inboxRel, []byte("this is not JSON {")) },
		named: inboxRel, breaks: inboxReaders, mustName: []string{"status", "status --json"}},

	// Escapes someone else wrote.
	{name: "escapes in a task and a message",
		plant: func(f *folder) {
			escapingTask(f)
			f.replace(inboxRel, goodUnread, goodUnread+" "+strings.ReplaceAll(strings.ReplaceAll(escapes, "\x1b", `\u001b`), "\x07", `\u0007`))
		},
		breaks: task3},

	// Pipes where files belong: nothing may block on them.
	{name: "inbox is a pipe", plant: fifo(inboxRel), named: inboxRel, breaks: inboxReaders,
		mustName: []string{"status", "status --json"}},
	{name: "archive is a pipe", plant: fifo(archiveRel), named: archiveRel,
		breaks: []string{"inbox --archived", "inbox --mark-read", "mcp read_inbox"}},
	{name: "task file is a pipe", plant: fifo(taskRel), named: taskRel,
		breaks: []string{"task get 1", "task get 1 --json", "task update 1"}},
	{name: "config is a pipe", plant: fifo(configRel), named: configRel, breaks: []string{"*"}},
}
