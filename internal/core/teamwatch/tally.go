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
// messages as LeadInbox counts them, read as streams, or taken from the
// memo of an earlier look (memo.go) when the inbox has not changed. When
// the lead's inbox was read without error, leadRequests holds its entries
// that can be requests (approval.FindAmong), else it is nil.
func (s *Snapshot) tallyMail(t team.Team, cfg *team.Config, memoDir string) (map[string]inboxCount, tally, LeadInbox, *leadRequests) {
	unread := map[string]inboxCount{}
	all := newTally(cfg)
	var lead LeadInbox
	var leadReqs *leadRequests
	stems, err := inboxFiles(t.InboxDir())
	if err != nil {
		s.problem(err)
	}
	names := map[string]string{}
	for _, m := range cfg.Members {
		names[team.SanitizePath(m.Name)] = m.Name
	}
	mo := openMemo(memoDir, t.Dir())
	leadPath := t.InboxPath(team.LeadName)
	for _, stem := range stems {
		to := names[stem]
		if to == "" {
			to = stem
		}
		path := filepath.Join(t.InboxDir(), stem+".json")
		summarises := post.SummarisesIdle(cfg, to)
		toLead := strings.EqualFold(to, team.LeadName)
		inSig, arSig, settled := inboxSigs(path, s.Taken)
		e := mo.lookup(path, inSig, arSig, all.names, summarises)
		if e != nil && toLead {
			n, ok := 0, e.Lead != nil
			if ok {
				n, ok = e.Lead.unreadAt(s.Taken)
			}
			if ok {
				lead.Unread += n
			} else {
				e = nil
			}
		}
		if e == nil {
			var err error
			if e, err = s.countInbox(t, cfg, path, to, summarises, toLead, path == leadPath); err != nil {
				s.problem(err)
				unread[stem] = inboxCount{n: -1, err: err}
				continue
			}
			if toLead {
				lead.Unread += e.Lead.Old
			}
			// Stored only if nothing was written while it was read.
			if in2, ar2, _ := inboxSigs(path, s.Taken); settled && in2 == inSig && ar2 == arSig {
				e.Inbox, e.Archive = inSig, arSig
				mo.store(path, e)
			}
		}
		all.then(e.tally(all.names))
		for _, sk := range e.Skipped {
			s.Problems = append(s.Problems, sk)
		}
		unread[stem] = inboxCount{n: e.Unread}
		if path == leadPath && e.Lead != nil && e.Lead.Read {
			leadReqs = &e.Lead.Requests
		}
	}
	mo.save()
	return unread, all, lead, leadReqs
}

// countInbox reads one inbox and its archive as streams. The archive's
// messages count as found first, as Messages lists them (the inbox is
// read before the archive, see mailReader.read).
func (s *Snapshot) countInbox(t team.Team, cfg *team.Config, path, to string, summarises, toLead, isLead bool) (*memoEntry, error) {
	in := mailbox.New(path, lockfile.Options{})
	in.SummarisesIdle = summarises
	in.Brief = true // only the texts that can be idle notices or requests are needed
	var box tally
	var n int
	var ld memoLead
	skipped, err := in.Each(func() { box, n, ld = newTally(cfg), 0, memoLead{AsOf: s.Taken, Read: isLead} }, func(m mailbox.Message) {
		at := m.Time()
		box.add(m.From, to, isIdle(m.Text), at, m.Text)
		if !m.Read {
			n++
			if toLead && !at.IsZero() {
				if s.Taken.Sub(at) >= LeadInboxMinAge {
					ld.Old++
				} else {
					ld.Recent = append(ld.Recent, at)
				}
			}
		}
		if isLead && isRequest(m.Text) {
			ld.Requests.Inbox = append(ld.Requests.Inbox, m)
		}
	})
	if err != nil {
		return nil, err
	}
	both := newTally(cfg)
	if err := in.EachArchived(func(m mailbox.Message) { both.add(m.From, to, isIdle(m.Text), m.Time(), m.Text) }); err != nil {
		return nil, err
	}
	both.then(box)
	if isLead {
		// Read as approval reads it, so that its answer is the same; a
		// failure is approval's to report, reading again (Read false).
		ld.Read = false
		if archivedRequests != nil {
			ld.Requests.Archived, err = archivedRequests(t)
			ld.Read = err == nil
		}
	}
	e := &memoEntry{Names: both.names, Summarises: summarises, Unread: n, Mail: memoMailOf(both)}
	for _, sk := range skipped {
		e.Skipped = append(e.Skipped, sk.Error())
	}
	if toLead || isLead {
		e.Lead = &ld
	}
	return e, nil
}
