package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paneteam/paneteam/team"
)

// StopOne asks one member to shut down, as 'paneteam shutdown --name
// NAME' does (docs/PROTOCOL.md §10), and says how it ended, for a front
// end that shows one line (the dashboard, the web view). A member that
// cannot answer (a plain program) is ended at once; the lead, in any
// spelling, is refused (ErrLeadStays); reason is what the teammate is
// told.
func (o Options) StopOne(ctx context.Context, t team.Team, name, reason string, timeout time.Duration) (string, error) {
	res, err := o.Shutdown(ctx, t, ShutdownOptions{Names: []string{name}, Reason: reason, Timeout: timeout})
	if err != nil {
		return "", err
	}
	if res == nil || len(res.Members) == 0 {
		if res != nil && len(res.LeftToClaude) > 0 {
			return "", fmt.Errorf("%s was left alone: Claude Code started it, and only Claude's lead can stop it", name)
		}
		return "", fmt.Errorf("%s was not asked", name)
	}
	m := res.Members[0]
	switch {
	case m.Error != "":
		return "", errors.New(m.Error)
	case m.Answer == AnswerRejected:
		return "", fmt.Errorf("%s refused: %s", m.Name, m.Reason)
	case m.Removed && m.Answer == AnswerEnded:
		return m.Name + " ended (it cannot answer): pane closed, removed from the team", nil
	case m.Removed:
		return m.Name + " stopped: pane closed, removed from the team", nil
	}
	return "", fmt.Errorf("%s did not answer the shutdown request; still in the team", m.Name)
}
