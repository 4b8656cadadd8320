package tmux

import (
	"context"
	"fmt"
	"strings"
)

// TeamOption is the user option (per session, or global with -g) that
// names the team tmux.conf.example's key bindings act on.
const TeamOption = "@paneteam-team"

// Here is where in tmux a process runs that tmux started for a key
// binding, such as a display-popup command: its environment has TMUX but,
// in a popup, no TMUX_PANE (tmux 3.3a sets only TMUX, naming the session,
// and does not expand formats in display-popup -e values). So the pane,
// the team and the folder are asked of the server, never passed through a
// shell command line.
type Here struct {
	Server Server
	// Pane is TMUX_PANE when set, else the active pane of the session's
	// current window: the pane the key was pressed in.
	Pane string
	// Team is TeamOption as that pane's session sees it ("" when unset).
	Team string
	// Dir is the pane's current directory ("" when tmux cannot tell).
	Dir string
}

// FindHere asks the server named by tmuxVar (a $TMUX value:
// socket,pid,session-id) where the caller is.
func FindHere(ctx context.Context, tmuxVar, tmuxPane string) (Here, error) {
	srv, err := FromTMUX(tmuxVar)
	if err != nil {
		return Here{}, err
	}
	target := tmuxPane
	if target == "" {
		parts := strings.Split(tmuxVar, ",")
		if len(parts) != 3 || parts[2] == "" {
			return Here{}, fmt.Errorf("TMUX=%q names no session: run this inside tmux", tmuxVar)
		}
		target = "$" + parts[2]
	}
	h := Here{Server: srv}
	// One value per call: an option or a folder name may hold any
	// character, so no separator could split a combined answer safely.
	// Format expansion does not expand a value again, so whatever the
	// option holds comes back as it is.
	for _, q := range []struct {
		dst    *string
		format string
	}{{&h.Pane, "#{pane_id}"}, {&h.Team, "#{" + TeamOption + "}"}, {&h.Dir, "#{pane_current_path}"}} {
		if *q.dst, err = srv.Run(ctx, "display-message", "-p", "-t", target, q.format); err != nil {
			return Here{}, fmt.Errorf("find the current pane: %w", err)
		}
	}
	return h, nil
}
