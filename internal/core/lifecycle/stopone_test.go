package lifecycle

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// The one-line stop the dashboard and the web view show: how the member
// ended, a refusal as an error, the lead never asked.
func TestStopOneSaysHowItEnded(t *testing.T) {
	ctx := context.Background()
	tm := newTeam(t)
	addMembers(t, tm, "alice", "bob")
	teammate(t, tm, "alice", "approve")
	teammate(t, tm, "bob", "reject")
	if got, err := opts().StopOne(ctx, tm, "alice", "done", 2*time.Second); err != nil || !strings.Contains(got, "alice stopped") {
		t.Fatalf("StopOne(alice) = %q, %v; want alice stopped", got, err)
	}
	if _, err := opts().StopOne(ctx, tm, "bob", "done", 2*time.Second); err == nil || !strings.Contains(err.Error(), "bob refused") {
		t.Fatalf("StopOne(bob) = %v; want bob's refusal", err)
	}
	if _, err := opts().StopOne(ctx, tm, "team-lead", "done", time.Second); !errors.Is(err, ErrLeadStays) {
		t.Fatalf("StopOne(team-lead) = %v; want ErrLeadStays", err)
	}
}
