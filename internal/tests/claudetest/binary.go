// Package claudetest runs the real Claude Code in paneteam's tests: it
// installs a pinned version with npm into a cache folder, serves a fake
// Anthropic Messages API whose replies the test scripts turn by turn, and
// drives Claude Code's interactive UI in a private tmux server with a
// scratch config folder (docs/PROTOCOL.md §17, docs/TESTING.md
// §5). Nothing leaves the machine.
//
//	api := claudetest.NewAPI(t)
//	s := claudetest.Start(t, claudetest.Options{API: api, Team: "demo"})
//	s.WaitTeam(t, 90*time.Second) // config.json with leadProcess
//	api.On("tell ptw hi", // the prompt typed below starts this exchange
//		claudetest.Calls(claudetest.Tool("ToolSearch", map[string]any{"query": "select:SendMessage", "max_results": 5})),
//		claudetest.Calls(claudetest.Tool("SendMessage", map[string]any{"to": "ptw", "message": "hi", "summary": "hi"})),
//		claudetest.Text("Sent."))
//	s.Submit(t, 90*time.Second, "tell ptw hi")
//	res := api.WaitMessages(t, 90*time.Second, 0, "Message sent to ptw") // the tool result Claude sent back
//
// Set PANETEAM_CLAUDETEST_DUMP=<dir> to keep every request body as a file.
package claudetest

import (
	"os"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// DefaultVersion is the Claude Code release the interop tests pin: the one
// docs/PROTOCOL.md describes.
const DefaultVersion = "2.1.330"

// Binary returns the Claude Code to test: $PANETEAM_CLAUDE_BIN when set,
// else DefaultVersion installed with testutil.ClaudeReleaseBin.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("PANETEAM_CLAUDE_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("PANETEAM_CLAUDE_BIN=%s: %v", p, err)
		}
		return p
	}
	return testutil.ClaudeReleaseBin(t, DefaultVersion)
}
