package cli

import (
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/lifecycle"
)

// TestReapSaysWhichLocksItRemoved: a cron log shows the pane locks
// cleanup --orphans removed, not only --json.
func TestReapSaysWhichLocksItRemoved(t *testing.T) {
	var b strings.Builder
	writeReap(&b, &lifecycle.ReapResult{StaleLocks: []string{"/tmp/tmux-0/paneteam-1.paneteam-lock"}}, false)
	if got := b.String(); !strings.Contains(got, "removed pane lock /tmp/tmux-0/paneteam-1.paneteam-lock") {
		t.Errorf("cleanup --orphans printed %q", got)
	}
	b.Reset()
	writeReap(&b, &lifecycle.ReapResult{DryRun: true, StaleLocks: []string{"/s.paneteam-lock"}}, false)
	if got := b.String(); !strings.Contains(got, "would remove pane lock /s.paneteam-lock") || strings.Contains(got, "nothing to clean up") {
		t.Errorf("cleanup --orphans --dry-run printed %q", got)
	}
}
