package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// TestFollowedLogShowsAWaitingPrompt: a followed log shows a line without
// its line break (a prompt waiting for input) once the program has been
// quiet a moment, and never holds more than maxPartial of one line.
func TestFollowedLogShowsAWaitingPrompt(t *testing.T) {
	var out testutil.Buffer
	v := &visibleLines{w: &out, idle: 20 * time.Millisecond}
	v.Write([]byte("ready\r\nproceed? [y/N] "))
	if got := out.String(); got != "ready\n" {
		t.Fatalf("at once: %q", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "proceed? [y/N]") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := out.String(); got != "ready\nproceed? [y/N] \n" {
		t.Fatalf("after a quiet moment: %q", got)
	}

	var long testutil.Buffer
	w := &visibleLines{w: &long}
	w.Write([]byte(strings.Repeat("x", maxPartial+10)))
	if n := len(long.String()); n < maxPartial {
		t.Errorf("a %d-byte line without a break: %d bytes shown, want it shown once it passed %d", maxPartial+10, n, maxPartial)
	}
}
