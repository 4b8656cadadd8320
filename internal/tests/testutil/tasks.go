package testutil

import (
	"bufio"
	"bytes"
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

//go:embed claude_task_writer.js
var claudeTaskWriter []byte

// ClaudeTaskWriter returns a command that creates count tasks in the task
// list folder dir exactly as Claude Code 2.1.88 does (the ".lock" file
// locked with proper-lockfile, 30 retries from 5 to 100 ms; next id from
// the highest file name or .highwatermark; "<id>.json" written in place).
// Subjects are "<prefix>-<i>"; extra is an optional description and
// activeForm. It prints "ACK <id> <subject>" for each task written and
// "DROP <subject> <error>" for each it gave up on.
func ClaudeTaskWriter(t testing.TB, dir, prefix string, count int, extra ...string) *exec.Cmd {
	t.Helper()
	mods := NodeModules(t)
	script := filepath.Join(t.TempDir(), "claude_task_writer.js")
	if err := os.WriteFile(script, claudeTaskWriter, 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{script, dir, prefix, strconv.Itoa(count)}, extra...)
	cmd := exec.Command("node", args...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	return cmd
}

// TaskAck is a task the Claude task writer says it wrote.
type TaskAck struct{ ID, Subject string }

// RunClaudeTaskWriter runs cmd (from ClaudeTaskWriter) and returns the
// tasks it acknowledged, in order. A failed run and every line that is not
// an ACK (a task it dropped) are test errors, reported with t.Errorf so
// that it may run on any goroutine.
func RunClaudeTaskWriter(t testing.TB, cmd *exec.Cmd) []TaskAck {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("claude task writer: %v\n%s", err, out)
	}
	var acks []TaskAck
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || f[0] != "ACK" {
			t.Errorf("claude task writer: %s", sc.Text())
			continue
		}
		acks = append(acks, TaskAck{ID: f[1], Subject: f[2]})
	}
	return acks
}
