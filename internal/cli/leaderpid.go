package cli

import (
	"context"
	"os"
	"strconv"

	"github.com/paneteam/paneteam/tmux"
)

// What team-create and resume share: the process that becomes a team's
// lead.

// defaultLeaderPID is the process that owns the lead: inside tmux, the
// process of the pane this command runs in (it outlives this command);
// elsewhere the parent shell.
func defaultLeaderPID(ctx context.Context, env Env) int {
	if env.Getenv("TMUX") != "" && env.Getenv("TMUX_PANE") != "" {
		if srv, err := tmux.FromTMUX(env.Getenv("TMUX")); err == nil {
			if out, err := srv.PanePID(ctx, env.Getenv("TMUX_PANE")); err == nil {
				if pid, err := strconv.Atoi(out); err == nil && pid > 0 {
					return pid
				}
			}
		}
	}
	return os.Getppid()
}
