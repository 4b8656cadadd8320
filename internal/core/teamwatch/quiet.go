package teamwatch

import (
	"strings"
	"time"

	"github.com/paneteam/paneteam/team"
)

// DefaultQuietPoll is the longest a watcher with WatchOptions.QuietPoll
// set to it waits between two re-reads of a quiet team.
const DefaultQuietPoll = 30 * time.Second

// quietCover is what a watcher must wait on, besides the file events of
// the team's folders and paneteam's state folder, to learn at once of
// everything a re-read of s's team could find changed: the processes
// whose exit ends a live member (pids), the folders of the records its
// CLIs' spending is read from (dirs), the first moment something
// becomes true by time alone (until: a lock held too long, the lead's
// unread message old enough to count), and whether that is all (ok). It
// is not ok while anything changes that no event announces: a member
// whose liveness is not one local process (another host, another pid
// space, an iTerm2 or terminal pane, Claude Code's own panes, a liveness
// that could not be read), spending records whose folder is not there
// yet, a resumable team's records, a problem that a later read may not have.
type quietCover struct {
	pids  []int
	dirs  []string
	until time.Time
	ok    bool
}

func coverOf(s *Snapshot, opts Options) quietCover {
	c := quietCover{ok: !opts.MembersOnly && len(s.Problems) == 0 && s.Resumable == nil}
	if s.Lead != nil && s.Lead.State == team.LeadAlive {
		if s.Lead.PID > 0 && !s.Lead.OtherPIDSpace {
			c.pids = append(c.pids, int(s.Lead.PID))
		} else {
			c.ok = false
		}
	}
	for i := range s.Members {
		m := &s.Members[i]
		if u := m.Usage; u != nil && u.Followed {
			// Its CLI's records grow as it spends: their folders are
			// watched.
			c.dirs = append(c.dirs, u.Records...)
			c.ok = c.ok && u.AllRecords
		}
		switch {
		case m.Host != "":
			c.ok = false
		case !byBackend(m.RunBy):
			// The lead's process, judged from config.json and its pid
			// (above) alone, or Claude Code's own pane.
			if m.RunBy == team.RunByClaudePane && m.Pane != PaneDead {
				c.ok = false
			}
		case m.Pane == PaneAlive && m.pid > 0:
			c.pids = append(c.pids, m.pid)
		case m.Pane == PaneAlive, m.Pane == PaneUnknown:
			c.ok = false
		}
	}
	age := opts.lockAge()
	for _, l := range s.Locks {
		if at := l.Since.Add(age); at.After(s.Taken) {
			c.at(at)
		}
	}
	// Only a live Claude Code lead's unread messages count by their age
	// (LeadInbox): for any other lead, a message's age changes nothing.
	if s.Lead != nil && s.Lead.ClaudeLed() {
		for _, m := range s.Messages {
			if !m.Archived && !m.Read && strings.EqualFold(m.To, team.LeadName) && !m.Time.IsZero() {
				if at := m.Time.Add(LeadInboxMinAge); at.After(s.Taken) {
					c.at(at)
				}
			}
		}
	}
	return c
}

// at keeps the earliest moment to look again.
func (c *quietCover) at(t time.Time) {
	if c.until.IsZero() || t.Before(c.until) {
		c.until = t
	}
}
