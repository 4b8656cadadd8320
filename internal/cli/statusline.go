package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// The tmux status line runs for every tmux client every few seconds
// (status-interval). It takes the same snapshot as status
// (teamwatch.Take, members only), whose backend.Census asks each tmux
// server once, with one `list-panes -a` for all of its panes, where asking
// each member's backend would cost one tmux client per member (28 ms of
// CPU for a team of 10); and the server running the status line not at
// all, when tmux hands over its panes (--panes, givenPanes).
//
// Its budget is bench/startup's: at most 4x an empty Go program for a
// team of 10. bench/RESULTS.md ("What the status line may do") lists what
// fits in it; per-member work beyond that belongs to the inbox memo, or
// to status and the dashboard, not to --format tmux.

// givenPanes hands census the panes the status line listed of its own
// server, the one in $TMUX (tmux sets it for a #(command)), so that the
// line runs no tmux client for it. A listing that does not read, or no
// $TMUX, is ignored: the census asks tmux as before.
func givenPanes(env Env, census *backend.Census, list string) {
	sock, _, _ := strings.Cut(env.Getenv("TMUX"), ",")
	panes, err := tmux.ParseStatusPanes(list)
	if sock == "" || err != nil {
		return
	}
	census.Given(tmux.Server{Socket: sock}, panes)
}

// writeTmuxStatus prints "name ▶busy ⏸idle ✗dead !N need you ✉unread $spent" per
// team, N the requests waiting for the lead's answer and the dialogs
// waiting in agent CLIs' panes, the unread count the
// lead's (the person at the keyboard), highlighted
// with tmux's #[...] style syntax (tmux(1), STYLES) when there is mail.
func writeTmuxStatus(w io.Writer, teams []teamStatus) error {
	var segs []string
	for _, ts := range teams {
		busy, idle, dead, mail, waiting := 0, 0, 0, 0, 0
		for _, m := range ts.Members {
			if m.Name == team.LeadName {
				mail = max(m.Unread, 0)
				continue
			}
			waiting += needs(m)
			switch m.State {
			case teamwatch.StateActive, teamwatch.StateNeedsYou:
				busy++
			case teamwatch.StateIdle:
				idle++
			}
			if m.Pane == paneDead {
				dead++
			}
		}
		seg := fmt.Sprintf("%s ▶%d ⏸%d", tmuxEscape(ts.Name), busy, idle)
		if ts.Error != "" {
			seg = tmuxEscape(ts.Name) + " ?"
		}
		if dead > 0 {
			seg += fmt.Sprintf(" #[fg=red]✗%d#[default]", dead)
		}
		if waiting > 0 {
			seg += fmt.Sprintf(" #[fg=red,bold,reverse]!%d need you#[default]", waiting)
		}
		if mail > 0 {
			seg += fmt.Sprintf(" #[fg=yellow,bold]✉%d#[default]", mail)
		}
		// The team's spending so far, once there is some; "+" when some
		// member's is unknown.
		if u := ts.Usage; u != nil && u.CostUSD != nil && *u.CostUSD > 0 {
			seg += " " + usdWord(u)
		}
		seg += budgetSegment(ts.Members)
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		return nil
	}
	_, err := fmt.Fprintln(w, strings.Join(segs, "  "))
	return err
}

// tmuxEscape makes a name from the team's folder safe in a status line:
// shown by the rule for someone else's text (visible.Line: tmux would
// pass an escape sequence on to the terminal), then every '#' doubled, so
// tmux reads none as the start of a format, a style or a #(command).
func tmuxEscape(s string) string { return strings.ReplaceAll(visible.Line(s), "#", "##") }
