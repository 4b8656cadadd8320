package post

import (
	"strings"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// OpenInbox returns name's inbox in t's team, as every paneteam reader and
// writer opens it. The lead's inbox of a team paneteam leads summarises
// idle notices (mailbox.Inbox.SummarisesIdle): each teammate's newest one
// stands for its older plain ones, which move to the archive as paneteam
// writes or reads. Every other inbox, and the lead's where a live Claude
// Code process leads, is left as Claude Code expects it. A nil cfg (team
// not readable) opens a plain inbox.
func OpenInbox(t team.Team, cfg *team.Config, name string, lock lockfile.Options) *mailbox.Inbox {
	in := mailbox.New(t.InboxPath(name), lock)
	in.SummarisesIdle = SummarisesIdle(cfg, name)
	return in
}

// SummarisesIdle reports whether name's inbox summarises idle notices:
// name is the lead of a team no live Claude Code process leads.
func SummarisesIdle(cfg *team.Config, name string) bool {
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
