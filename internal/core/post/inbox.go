package post

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

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
	if team.SanitizePath(name) != team.SanitizePath(cfg.LeadAgentName()) {
		return false
	}
	return !team.LeadOf(cfg).ClaudeLed()
}

// InboxName is the inbox a reader means by name: "" is the lead's; a
// member's name gives its inbox as the config spells it; any other name
// only when its inbox or archive exists (a teammate that has left, a name
// written to with a new inbox). A name that cannot be an inbox's is a
// *UsageError.
func InboxName(t team.Team, cfg *team.Config, name string) (string, error) {
	if name == "" {
		name = team.LeadName
	}
	if m := cfg.Member(name); m != nil {
		return m.Name, nil
	}
	if err := team.CheckName("agent", name); err != nil {
		return "", &UsageError{err}
	}
	file := team.SanitizePath(name)
	for _, p := range []string{t.InboxPath(file), mailbox.ArchivePath(t.InboxPath(file))} {
		if _, err := os.Stat(p); err == nil {
			return file, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%q is not a member of team %s and has no inbox (members: %s)",
		name, t.Name, strings.Join(cfg.MemberNames(), ", "))
}

// CheckMarkRead is the mark-read safety rule: paneteam never marks read
// what waits in an inbox Claude Code reads itself, the lead's of a team a
// live Claude Code leads and those of Claude Code's own teammates.
// Claude Code delivers only unread entries and deletes read ones
// (docs/PROTOCOL.md §6), so a message marked read there (a teammate's
// permission request, an idle or shutdown frame) would never reach it,
// and whoever waits on it would hang. It refuses with a *MarkReadError.
// A teammate Claude's lead started through paneteam's router is Claude's,
// but paneteam reads its inbox: marking read there is paneteam's job.
func CheckMarkRead(cfg *team.Config, name string) error {
	m := cfg.Member(name)
	_, claudeLeads := cfg.LeadProcess()
	switch {
	case claudeLeads && team.IsLeadName(cfg, name):
		// In every spelling: "team.lead" is the lead's team-lead.json too.
		return &MarkReadError{Team: cfg.Name, Name: name, Lead: true}
	case m != nil && cfg.StartedByClaude(m) && !m.Routed():
		return &MarkReadError{Team: cfg.Name, Name: m.Name}
	}
	return nil
}

// MarkReadError is marking read refused in an inbox Claude Code reads.
type MarkReadError struct {
	Team, Name string
	// Lead: the inbox is the lead's, and Claude Code leads the team;
	// else Name is Claude Code's own teammate.
	Lead bool
}

func (e *MarkReadError) Error() string {
	if e.Lead {
		return fmt.Sprintf("Claude Code leads team %s and reads team-lead's inbox itself: marking its messages read would hide them from it", e.Team)
	}
	return fmt.Sprintf("%s is Claude Code's own teammate and reads its inbox itself: marking its messages read would hide them from it", e.Name)
}

// Unread is the messages of msgs not read yet, in order.
func Unread(msgs []mailbox.Message) []mailbox.Message {
	var out []mailbox.Message
	for _, m := range msgs {
		if !m.Read {
			out = append(out, m)
		}
	}
	return out
}

// SettleWait is how long a person's read of an inbox that summarises
// idle notices waits for its lock, so what is shown is summarised
// already; a watcher's read only tries it.
const SettleWait = 3 * time.Second

// Settle summarises in's idle notices before a person reads it, waiting
// up to SettleWait for the lock; an inbox that does not summarise them is
// left alone.
func Settle(ctx context.Context, in *mailbox.Inbox) {
	if !in.SummarisesIdle {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, SettleWait)
	defer cancel()
	in.SummariseIdle(sctx)
}
