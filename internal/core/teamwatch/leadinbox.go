package teamwatch

import (
	"fmt"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// LeadInboxMinAge is how long a message may sit unread in the lead's
// inbox before it counts as waiting: Claude Code polls every 1000 ms and
// delivers about 0.85 s after a write when it polls at all
// (docs/PROTOCOL.md §6, §17).
const LeadInboxMinAge = 5 * time.Second

// LeadInboxNote is what status and send tell the person when LeadInbox
// is set.
const LeadInboxNote = "Claude Code reads its inbox only once it has spawned a teammate of its own; " +
	"until then messages to team-lead wait unread"

// LeadInbox says that a Claude Code lead reads its inbox late: a Claude
// Code lead reads it only while it has a teammate of its own, so a message
// to it can wait unread for as long as that takes.
type LeadInbox struct {
	// Unread counts the lead's unread messages older than LeadInboxMinAge.
	Unread int `json:"unread"`
	// Unpolled: a live Claude Code lead with no teammate of its own, so
	// nothing reads those messages yet.
	Unpolled bool `json:"unpolled"`
}

// CheckLeadInbox counts the messages waiting in the lead's inbox of a
// team whose lead is a live Claude Code process, and says whether that
// lead is not polling (it has no teammate of its own: members Claude Code
// started, in its process or in a pane). For any other team it returns the
// zero value.
func CheckLeadInbox(t team.Team, cfg *team.Config, lead team.Lead, now time.Time) (LeadInbox, error) {
	if !claudeLeadAlone(cfg, lead) {
		return LeadInbox{}, nil
	}
	msgs, err := mailbox.New(t.InboxPath(team.LeadName), lockfile.Options{}).Unread()
	if err != nil {
		return LeadInbox{}, fmt.Errorf("read the lead's inbox: %w", err)
	}
	var w LeadInbox
	for _, m := range msgs {
		w.count(m.Time(), now)
	}
	w.Unpolled = w.Unread > 0
	return w, nil
}

func claudeLeadAlone(cfg *team.Config, lead team.Lead) bool {
	return lead.ClaudeLed() && len(cfg.ClaudeTeammates()) == 0
}

func (w *LeadInbox) count(ts, now time.Time) {
	if !ts.IsZero() && now.Sub(ts) >= LeadInboxMinAge {
		w.Unread++
	}
}

// leadInboxOf is CheckLeadInbox from the lead's unread messages the
// snapshot counted (w); nil unless they wait unpolled.
func leadInboxOf(s *Snapshot, cfg *team.Config, w LeadInbox) *LeadInbox {
	if !claudeLeadAlone(cfg, *s.Lead) {
		return nil
	}
	if w.Unread == 0 {
		return nil
	}
	w.Unpolled = true
	return &w
}
