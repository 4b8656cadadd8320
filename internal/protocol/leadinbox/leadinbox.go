// Package leadinbox says out loud what Claude Code does not: a Claude Code
// lead reads its inbox only while it has a teammate of its own, so a
// message to it can wait unread for as long as that takes.
package leadinbox

import (
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// MinAge is how long a message may sit unread before it counts as
// waiting: Claude Code polls every 1000 ms and delivers about 0.85 s
// after a write when it polls at all (PROTOCOL-2.1.330.md §3, §13).
const MinAge = 5 * time.Second

// Note is what status and send tell the person.
const Note = "Claude Code reads its inbox only once it has spawned a teammate of its own " +
	"(Claude Code 2.1.330); until then messages to team-lead wait unread"

// Waiting is the outcome of Check.
type Waiting struct {
	// Unread counts the lead's unread messages older than MinAge.
	Unread int `json:"unread"`
	// Unpolled: a live Claude Code lead with no teammate of its own, so
	// nothing reads those messages yet.
	Unpolled bool `json:"unpolled"`
}

// Check counts the messages waiting in the lead's inbox of a team whose
// lead is a live Claude Code process, and says whether that lead is not
// polling (it has no teammate of its own: members Claude Code started, in
// its process or in a pane). For any other team it returns the zero value.
func Check(t team.Team, cfg *team.Config, lead team.Lead, now time.Time) (Waiting, error) {
	if !lead.ClaudeLed() || len(cfg.ClaudeTeammates()) > 0 {
		return Waiting{}, nil
	}
	msgs, err := mailbox.New(t.InboxPath(team.LeadName), lockfile.Options{}).Unread()
	if err != nil {
		return Waiting{}, fmt.Errorf("read the lead's inbox: %w", err)
	}
	var w Waiting
	for _, m := range msgs {
		if ts := m.Time(); !ts.IsZero() && now.Sub(ts) >= MinAge {
			w.Unread++
		}
	}
	w.Unpolled = w.Unread > 0
	return w, nil
}

// Open returns name's inbox in t's team. The lead's inbox of a team
// paneteam leads summarises idle notices (mailbox.Inbox.SummarisesIdle):
// each teammate's newest one stands for its older plain ones, which move
// to the archive as paneteam writes or reads. Every other inbox, and the
// lead's where a live Claude Code process leads, is left as Claude Code
// expects it. A nil cfg (team not readable) opens a plain inbox.
func Open(t team.Team, cfg *team.Config, name string, lock lockfile.Options) *mailbox.Inbox {
	in := mailbox.New(t.InboxPath(name), lock)
	in.SummarisesIdle = Summarises(cfg, name)
	return in
}

// Summarises reports whether name's inbox summarises idle notices: name
// is the lead of a team no live Claude Code process leads.
func Summarises(cfg *team.Config, name string) bool {
	if cfg == nil {
		return false
	}
	lead := team.LeadName
	if l, _, ok := strings.Cut(cfg.LeadAgentID, "@"); ok && l != "" {
		lead = l
	}
	if team.SanitizePath(name) != team.SanitizePath(lead) {
		return false
	}
	return !team.LeadOf(cfg).ClaudeLed()
}
