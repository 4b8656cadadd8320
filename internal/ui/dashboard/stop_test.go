package dashboard

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// TestStopEndsAPlainProgramAtOnce: the stop key, on a member that runs a
// plain program, ends it and says so, rather than waiting out the
// shutdown timeout for an answer that cannot come; its inbox gets no
// request it would never read.
func TestStopEndsAPlainProgramAtOnce(t *testing.T) {
	tm := teamtest.New(t, "crew", team.CreateOptions{LeaderPID: os.Getpid()},
		team.Member{Name: "aider", Paneteam: &team.MemberMeta{Shutdown: team.ShutdownEnd}})
	live := &Live{Team: tm, ShutdownTimeout: time.Minute}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	said, err := live.Stop(ctx, "aider")
	if err != nil {
		t.Fatalf("stop aider: %v", err)
	}
	if !strings.Contains(said, "aider ended (it cannot answer)") {
		t.Errorf("the dashboard said %q", said)
	}
	if names := teamtest.Load(t, tm).MemberNames(); strings.Join(names, ",") != team.LeadName {
		t.Errorf("members after stop: %v", names)
	}
	if _, err := os.Stat(tm.InboxPath("aider")); err == nil {
		t.Error("aider was sent a shutdown request it cannot read")
	}
}
