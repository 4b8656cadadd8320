package approval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// State is where a request stands.
type State string

const (
	// StateWaiting: nobody has answered and the teammate is still a member.
	StateWaiting State = "waiting"
	// StateAnswered: paneteam answered it (answered.go).
	StateAnswered State = "answered"
	// StateGone: the teammate has left the team; nobody waits for an answer.
	StateGone State = "gone"
)

// Listing is every request found for a team's lead, with what is known
// about each.
type Listing struct {
	Team   team.Team
	Config *team.Config
	// All holds each distinct request once, oldest first.
	All      []Request
	answered map[key]Record
}

// Find reads the requests in the lead's inbox and in its archive (a
// watcher may have marked them read, and paneteam moves read messages to
// the archive: mailbox/archive.go), and paneteam's record of the ones it
// answered. It takes no lock: every file it reads is replaced atomically
// or only appended to.
//
// The inbox is read as a stream and only the entries that can be requests
// are kept (parse reads no other), so a lead's inbox of tens of megabytes
// costs the status line one entry's memory.
func Find(t team.Team, cfg *team.Config) (*Listing, error) {
	var inbox []mailbox.Message
	_, err := mailbox.New(t.InboxPath(team.LeadName), lockfile.Options{}).Each(func() { inbox = nil }, func(m mailbox.Message) {
		if strings.Contains(m.Text, "_request") {
			inbox = append(inbox, m)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read the lead's inbox: %w", err)
	}
	return FindIn(t, cfg, inbox)
}

// FindIn is Find for a caller that has read the lead's inbox already (the
// status line, which also counts its unread messages): the inbox is read
// once per refresh.
func FindIn(t team.Team, cfg *team.Config, inbox []mailbox.Message) (*Listing, error) {
	archived, err := ArchivedRequests(t)
	if err != nil {
		return nil, err
	}
	return FindAmong(t, cfg, archived, inbox)
}

// ArchivedRequests reads the entries of the lead's archive that can be
// requests, as Find keeps them.
func ArchivedRequests(t team.Team) ([]mailbox.Message, error) {
	return readArchive(mailbox.ArchivePath(t.InboxPath(team.LeadName)), []byte("_request"))
}

// FindAmong is FindIn for a caller that has read the lead's archive too
// (ArchivedRequests): the status line keeps both between refreshes while
// neither file changes.
func FindAmong(t team.Team, cfg *team.Config, archived, inbox []mailbox.Message) (*Listing, error) {
	msgs := append(append([]mailbox.Message(nil), archived...), inbox...)

	answers, err := readAnswered(AnsweredPath(t))
	if err != nil {
		return nil, err
	}
	l := &Listing{Team: t, Config: cfg, answered: map[key]Record{}}
	for _, a := range answers {
		l.answered[key{a.ID, lower(a.From)}] = a
	}
	l.All = distinct(msgs)
	if err := l.addReplies(); err != nil {
		return nil, err
	}
	return l, nil
}

// addReplies counts as answered the waiting requests that a reply still in
// the teammate's inbox or archive answers (replied.go). Only teammates
// with a request otherwise waiting are read, so status stays cheap.
func (l *Listing) addReplies() error {
	read := map[string]map[string]bool{}
	for _, r := range l.All {
		if l.State(r) != StateWaiting {
			continue
		}
		name := lower(r.From)
		ids, ok := read[name]
		if !ok {
			var err error
			if ids, err = repliedIDs(l.Team, l.Config.Member(r.From).Name); err != nil {
				return fmt.Errorf("read %s's inbox for replies: %w", r.From, err)
			}
			read[name] = ids
		}
		if ids[r.ID] {
			l.answered[r.key()] = Record{ID: r.ID, From: r.From, Kind: r.Kind}
		}
	}
	return nil
}

// distinct parses the request entries, keeps the first copy of each (the
// same entry can sit in the archive and the inbox after a crash, and a
// teammate may send one twice) and sorts them oldest first.
func distinct(msgs []mailbox.Message) []Request {
	var out []Request
	at := map[key]int{}
	for _, m := range msgs {
		r, ok := parse(m)
		if !ok {
			continue
		}
		if i, dup := at[r.key()]; dup {
			// Claude Code's lead omits planDigest when two different plans
			// came under one id (§9, plan approval step 2).
			if r.Kind == KindPlan && out[i].Kind == KindPlan && r.PlanContent != out[i].PlanContent {
				out[i].PlanConflict = true
			}
			continue
		}
		at[r.key()] = len(out)
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// State tells where r stands.
func (l *Listing) State(r Request) State {
	if _, ok := l.answered[r.key()]; ok {
		return StateAnswered
	}
	if m := l.Config.Member(r.From); m == nil || team.IsLeadName(l.Config, m.Name) {
		return StateGone
	}
	return StateWaiting
}

// Record returns paneteam's record of the answer to r, if it answered.
func (l *Listing) Record(r Request) (Record, bool) {
	a, ok := l.answered[r.key()]
	return a, ok
}

// Waiting returns the requests still waiting for the lead, oldest first,
// each From spelled as the member's name in config.json (Claude Code
// compares names without case).
func (l *Listing) Waiting() []Request {
	var out []Request
	for _, r := range l.All {
		if l.State(r) == StateWaiting {
			r.From = l.Config.Member(r.From).Name
			out = append(out, r)
		}
	}
	return out
}

// Pending returns the requests waiting for the lead of the team named
// teamName under root, oldest first: what status and a dashboard show as
// "needs you". It reads three files and takes no lock.
func Pending(root, teamName string) ([]Request, error) {
	t, cfg, err := team.Open(root, teamName)
	if err != nil {
		return nil, err
	}
	l, err := Find(t, cfg)
	if err != nil {
		return nil, err
	}
	return l.Waiting(), nil
}

// PerTeammate counts requests by teammate: with Pending, what a status
// line shows as "needs you" per member, keyed by member name.
func PerTeammate(reqs []Request) map[string]int {
	n := map[string]int{}
	for _, r := range reqs {
		n[r.From]++
	}
	return n
}

// readArchive reads the entries of an inbox archive (one compact JSON
// message per line, mailbox/archive.go) that may hold a frame whose type
// contains kind ("_request", "_response"). Other lines are skipped unparsed, so that status stays cheap on a
// long history; a line that does not parse is skipped as mailbox does.
func readArchive(path string, kind []byte) ([]mailbox.Message, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read archive %s: %w", path, err)
	}
	defer f.Close()
	var out []mailbox.Message
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return out, nil // a last line without newline is an append in progress
		}
		if err != nil {
			return nil, fmt.Errorf("read archive %s: %w", path, err)
		}
		if !bytes.Contains(line, kind) {
			continue
		}
		var m mailbox.Message
		if json.Unmarshal(line, &m) == nil {
			out = append(out, m)
		}
	}
}
