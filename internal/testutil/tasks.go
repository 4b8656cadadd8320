package testutil

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
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
	args := append([]string{script, dir, prefix, itoa(count)}, extra...)
	cmd := exec.Command("node", args...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	return cmd
}
