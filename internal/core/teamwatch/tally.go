package teamwatch

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// What a member's state needs of the team's mail is small: its latest idle
// notice and the time of its latest other message, from or to it. A
// snapshot that shows only members (status, its tmux status line, a new
// process every few seconds) gathers that as the inboxes stream past
// (mailbox.Inbox.Each), so its memory is the team's members, not its mail
// (an inbox nobody reads can hold tens of megabytes). A snapshot that
// keeps every message (watch, the dashboard) feeds the same tally from
// them, so both judge a member alike.

// memberMail is what a member's state needs of the team's mail.
type memberMail struct {
	idleSeen                bool
	lastIdle, lastActivity  time.Time
	idleReason, idleSummary string
}

// tally gathers memberMail for each member of a team from its messages,
// given oldest first (or, for equal times, in the order they were found:
// the latest idle notice is the last of the newest).
type tally struct {
	names []string
	mail  []memberMail
}

func newTally(cfg *team.Config) tally {
	t := tally{names: make([]string, len(cfg.Members)), mail: make([]memberMail, len(cfg.Members))}
	for i, m := range cfg.Members {
		t.names[i] = m.Name
	}
	return t
}

// add counts one message to the inbox of to. text is read only when the
// message is the member's latest idle notice.
func (t *tally) add(from, to string, idle bool, at time.Time, text string) {
	for i, name := range t.names {
		from, to := strings.EqualFold(from, name), strings.EqualFold(to, name)
		mm := &t.mail[i]
		switch {
		case from && idle:
			if !at.Before(mm.lastIdle) {
				mm.idleSeen, mm.lastIdle = true, at
				mm.idleReason, mm.idleSummary = idleDetails(text)
			}
		case from || to:
			if at.After(mm.lastActivity) {
				mm.lastActivity = at
			}
		}
	}
}

// then adds what later found after what t found, as if added in turn.
func (t *tally) then(later tally) {
	for i, l := range later.mail {
		mm := &t.mail[i]
		if l.idleSeen && !l.lastIdle.Before(mm.lastIdle) {
			mm.idleSeen, mm.lastIdle, mm.idleReason, mm.idleSummary = true, l.lastIdle, l.idleReason, l.idleSummary
		}
		if l.lastActivity.After(mm.lastActivity) {
			mm.lastActivity = l.lastActivity
		}
	}
}

func (t *tally) of(name string) memberMail {
	for i, n := range t.names {
		if n == name {
			return t.mail[i]
		}
	}
	return memberMail{}
}

func idleDetails(text string) (reason, summary string) {
	if p, ok := mailbox.Parse(text); ok {
		if v, ok := p.Value.(*mailbox.IdleNotification); ok {
			return v.IdleReason, v.Summary
		}
	}
	return "", ""
}

// isIdle is whether text is an idle_notification frame, parsing only the
// texts that can be one: those that spell its type, plainly or escaped.
func isIdle(text string) bool {
	if !strings.Contains(text, mailbox.TypeIdle) && !strings.Contains(text, `\u`) {
		return false
	}
	p, ok := mailbox.Parse(text)
	return ok && p.Type == mailbox.TypeIdle
}

// tallyMail is readMessages for a snapshot that keeps no messages: each
// inbox's unread count, every member's memberMail and the lead's unread
// messages as LeadInbox counts them, read as streams.
func (s *Snapshot) tallyMail(t team.Team, cfg *team.Config) (map[string]inboxCount, tally, LeadInbox) {
	unread := map[string]inboxCount{}
	all := newTally(cfg)
	var lead LeadInbox
	stems, err := inboxFiles(t.InboxDir())
	if err != nil {
		s.problem(err)
	}
	names := map[string]string{}
	for _, m := range cfg.Members {
		names[team.SanitizePath(m.Name)] = m.Name
	}
	for _, stem := range stems {
		to := names[stem]
		if to == "" {
			to = stem
		}
		in := mailbox.New(filepath.Join(t.InboxDir(), stem+".json"), lockfile.Options{})
		in.SummarisesIdle = post.SummarisesIdle(cfg, to)
		// The inbox is read before the archive (see mailReader.read); the
		// archive's messages count as found first, as Messages lists them.
		var box tally
		var n int
		var leadBox LeadInbox
		toLead := strings.EqualFold(to, team.LeadName)
		skipped, err := in.Each(func() { box, n, leadBox = newTally(cfg), 0, LeadInbox{} }, func(m mailbox.Message) {
			at := m.Time()
			box.add(m.From, to, isIdle(m.Text), at, m.Text)
			if !m.Read {
				n++
				if toLead {
					leadBox.count(at, s.Taken)
				}
			}
		})
		if err == nil {
			arch := newTally(cfg)
			err = in.EachArchived(func(m mailbox.Message) { arch.add(m.From, to, isIdle(m.Text), m.Time(), m.Text) })
			if err == nil {
				all.then(arch)
				all.then(box)
				lead.Unread += leadBox.Unread
			}
		}
		if err != nil {
			s.problem(err)
			unread[stem] = inboxCount{n: -1, err: err}
			continue
		}
		for _, sk := range skipped {
			s.problem(sk)
		}
		unread[stem] = inboxCount{n: n}
	}
	return unread, all, lead
}
