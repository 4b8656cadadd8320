package agentrun_test

import (
	"context"
	"testing"

	"github.com/paneteam/paneteam/internal/agents/agentrun"
	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/spawn"
	"github.com/paneteam/paneteam/team"
)

// An --agent teammate runs under 'paneteam teammate --agent', which
// answers a shutdown_request (after its CLI's own quit): its member is
// recorded as one to ask.
func TestAgentTeammateIsRecordedAsAnswering(t *testing.T) {
	l, err := agentrun.Spawner{Profile: &profile.Profile{Name: "codex"}, Paneteam: "/opt/paneteam"}.Prepare(context.Background(),
		spawn.Setup{Team: team.Team{Name: "crew"}, Member: team.Member{Name: "coder"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.Shutdown != team.ShutdownAsk || l.CLI != "codex" {
		t.Fatalf("launch records shutdown %q, cli %q; want %q, codex", l.Shutdown, l.CLI, team.ShutdownAsk)
	}
}
