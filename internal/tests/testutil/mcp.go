package testutil

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeMCP starts 'paneteam mcp' (the built binary, which runs the built
// paneteam-mcp beside it) as agent of team in root, and connects the
// SDK's own client; both end with the test.
func ServeMCP(t testing.TB, root, team, agent string, env ...string) *mcp.ClientSession {
	t.Helper()
	MCPBinary(t)
	cmd := exec.Command(Binary(t), "mcp")
	cmd.Env = Env(append([]string{"PANETEAM_ROOT=" + root, "PANETEAM_TEAM=" + team, "PANETEAM_AGENT=" + agent}, env...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to paneteam mcp: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
