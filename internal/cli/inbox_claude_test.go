package cli

import (
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestMarkReadRefusedOnInboxesClaudeReads: Claude Code deletes what is
// marked read without delivering it, so paneteam refuses --mark-read on
// the inbox of Claude's lead and of Claude's own teammates; reading them
// without --mark-read is fine.
func TestMarkReadRefusedOnInboxesClaudeReads(t *testing.T) {
	root, vars := ptRootVars(t)
	_, lead := testutil.LiveClaudeLead(t)
	testutil.ClaudeTeam(t, root, "session-0a1b2c3d", lead, testutil.ClaudeInProcessTeammate("bob"))
	for _, args := range [][]string{
		{"inbox", "--team", "session-0a1b2c3d", "--mark-read"},
		{"inbox", "--team", "session-0a1b2c3d", "--name", "bob", "--mark-read"},
		{"inbox-watch", "--team", "session-0a1b2c3d", "--once", "--mark-read"},
	} {
		_, errs, code := ptRun(t, vars, "", args...)
		if code != ExitUsage || !strings.Contains(errs, "reads") || !strings.Contains(errs, "drop --mark-read") {
			t.Errorf("%s: exit %d, %s; want a usage error saying Claude Code reads that inbox", strings.Join(args, " "), code, errs)
		}
	}
	if _, errs, code := ptRun(t, vars, "", "inbox", "--team", "session-0a1b2c3d"); code != 0 {
		t.Errorf("inbox without --mark-read: exit %d %s", code, errs)
	}
}
