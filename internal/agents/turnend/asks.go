package turnend

import (
	"time"

	"github.com/paneteam/paneteam/internal/agents/profile"
	"github.com/paneteam/paneteam/internal/core/panedialog"
	"github.com/paneteam/paneteam/team"
)

// Asked reports whether a hook's report is the CLI's permission dialog
// showing in its pane (profile.Asks), with the CLI's summary of what it
// asks. A profile without Asks never asks.
func Asked(a *profile.Asks, obj map[string]any) (about string, ok bool) {
	if a == nil || len(a.Match) == 0 || !matches(obj, a.Match) {
		return "", false
	}
	if a.About != "" {
		about, _ = obj[a.About].(string)
	}
	return about, true
}

// FollowAsks keeps agent's mark of asking (package asking) as the hook's
// latest report says: set by the dialog's report, cleared by any other
// (the tool ran, the turn ended, ...), since the CLI reports nothing while
// its dialog is up.
func FollowAsks(t team.Team, agent string, a *profile.Asks, obj map[string]any, now time.Time) error {
	if a == nil {
		return nil
	}
	if about, ok := Asked(a, obj); ok {
		return panedialog.Set(t, agent, about, now)
	}
	return panedialog.Clear(t, agent)
}
