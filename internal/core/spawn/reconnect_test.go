package spawn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/spawn"
)

// Reconnect is for a teammate on another host whose connection ended: one
// started here is refused, and its pane and row are left as they were.
// (A real reconnect over ssh: internal/cli's reconnect test.)
func TestReconnectRefusesATeammateOfThisMachine(t *testing.T) {
	w := newWorld(t)
	res, err := spawn.Run(context.Background(), w.request("alice", t.TempDir(), spawn.Command{Argv: []string{"sleep", "600"}}))
	if err != nil {
		t.Fatal(err)
	}
	cfg := w.config()
	r := w.request("alice", "", nil)
	_, err = spawn.Reconnect(context.Background(), spawn.Reconnection{Team: w.team, Config: cfg, Member: cfg.Member("alice"),
		BackendEnv: r.BackendEnv, Getenv: w.getenv, Exe: "/nonexistent/paneteam"})
	if err == nil || !strings.Contains(err.Error(), "alice does not run on another host") {
		t.Fatalf("Reconnect of a local teammate: %v; want it refused", err)
	}
	if m := w.config().Member("alice"); m == nil || m.TmuxPaneID != res.PaneID {
		t.Fatalf("after the refusal alice is %+v; want her row and pane %s kept", m, res.PaneID)
	}
	if _, err := w.srv.Run(context.Background(), "display-message", "-p", "-t", res.PaneID, "#{pane_id}"); err != nil {
		t.Fatalf("alice's pane is gone after a refused reconnect: %v", err)
	}
}
