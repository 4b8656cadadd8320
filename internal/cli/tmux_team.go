package cli

import (
	"context"
	"time"

	"github.com/paneteam/paneteam/tmux"
)

// tmuxAskTimeout bounds the questions asked of tmux to find the team, so
// a hung server cannot hang a command that would otherwise just fail.
const tmuxAskTimeout = 3 * time.Second

// tmuxTeam is the tmux session's @paneteam-team option when the command
// runs inside tmux ("" otherwise, or when tmux cannot be asked). This is
// how tmux.conf.example's popups learn their team: the popup command
// line is a fixed string, and the team, read by paneteam from the server,
// never passes through a shell or a format (issue 12).
func tmuxTeam(ctx context.Context, env Env) string {
	tv := env.Getenv("TMUX")
	if tv == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, tmuxAskTimeout)
	defer cancel()
	here, err := tmux.FindHere(ctx, tv, env.Getenv("TMUX_PANE"))
	if err != nil {
		return ""
	}
	return here.Team
}

// tmuxTeamHint adds the tmux way to name a team to "no team" errors
// given inside tmux.
func tmuxTeamHint(env Env) string {
	if env.Getenv("TMUX") == "" {
		return ""
	}
	return ", or for this tmux session: tmux set-option " + tmux.TeamOption + " NAME"
}
