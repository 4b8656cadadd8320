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

// DefaultVersion is the Claude Code release the real-Claude tests pin: the
// newest one docs/PROTOCOL.md and docs/CLAUDE-TMUX.md describe
// (claudeversion.Tested). Moving to a new release is one routine:
// scripts/claude-release (docs/TESTING.md).
const DefaultVersion = "2.1.332"

// PreviousVersion is the release pinned before DefaultVersion. CI runs a
// few key tests against it as well (.ci/run), so that a person who has
// not updated yet stays covered without running the whole suite twice.
const PreviousVersion = "2.1.330"

// EnvVersion names the release the real-Claude tests run instead of
// DefaultVersion: a release number, or "previous" for PreviousVersion.
const EnvVersion = "PANETEAM_CLAUDE_VERSION"

// Version is the release the real-Claude tests run: $PANETEAM_CLAUDE_VERSION
// when set, else DefaultVersion.
func Version() string {
	switch v := os.Getenv(EnvVersion); v {
	case "":
		return DefaultVersion
	case "previous":
		return PreviousVersion
	default:
		return v
	}
}

// Binary returns the Claude Code to test: $PANETEAM_CLAUDE_BIN when set,
// else Version() installed with testutil.ClaudeReleaseBin.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("PANETEAM_CLAUDE_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("PANETEAM_CLAUDE_BIN=%s: %v", p, err)
		}
		return p
	}
	return testutil.ClaudeReleaseBin(t, Version())
}
