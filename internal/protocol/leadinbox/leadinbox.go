// Package leadinbox is what is left of the note that a Claude Code lead
// reads its inbox late, for send until it moves: the judgement is
// teamwatch's (teamwatch.CheckLeadInbox), beside the rest of a team's
// state. Use that; this package goes once send does.
package leadinbox

import (
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/team"
)

// Note is teamwatch.LeadInboxNote.
const Note = teamwatch.LeadInboxNote

// Waiting is teamwatch.LeadInbox.
type Waiting = teamwatch.LeadInbox

// Check is teamwatch.CheckLeadInbox.
func Check(t team.Team, cfg *team.Config, lead team.Lead, now time.Time) (Waiting, error) {
	return teamwatch.CheckLeadInbox(t, cfg, lead, now)
}
