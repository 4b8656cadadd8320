package tmux_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/tmux"
)

// A popup's environment names only the server and session; FindHere gets
// the active pane and the session's team from the server, and a team
// option full of shell and format syntax comes back unexpanded.
func TestFindHere(t *testing.T) {
	srv := testutil.TmuxServer(t)
	ctx := context.Background()
	pane := testutil.FirstPane(t, srv)
	team := `rev$(touch x)#{pane_id}#(touch y)'"`
	if _, err := srv.Run(ctx, "set-option", "-t", "guard", tmux.TeamOption, team); err != nil {
		t.Fatal(err)
	}
	sid, err := srv.Run(ctx, "display-message", "-p", "-t", "guard", "#{session_id}")
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := srv.Run(ctx, "display-message", "-p", "#{pid}")
	tmuxVar := srv.Socket + "," + pid + "," + strings.TrimPrefix(sid, "$")
	h, err := tmux.FindHere(ctx, tmuxVar, "")
	if err != nil {
		t.Fatal(err)
	}
	if h.Pane != pane || h.Team != team || h.Server.Socket != srv.Socket || h.Dir == "" {
		t.Errorf("FindHere = %+v; want pane %s, team %q", h, pane, team)
	}
	// Unset: empty, not an error (the caller says how to set it).
	srv.Run(ctx, "set-option", "-u", "-t", "guard", tmux.TeamOption)
	if h, err = tmux.FindHere(ctx, tmuxVar, pane); err != nil || h.Team != "" || h.Pane != pane {
		t.Errorf("unset option: %+v, %v", h, err)
	}
	if _, err := tmux.FindHere(ctx, "", ""); err == nil {
		t.Error("empty TMUX accepted")
	}
}
