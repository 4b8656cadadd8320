package teamwatch

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/filesig"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/mailbox"
)

// The tmux status line is a new process every few seconds, and most of
// the time no inbox has changed since the last one. A members-only
// snapshot therefore keeps what it counted of each inbox (the tally, the
// unread count, the lead's requests) in a small file per team in
// paneteam's state folder (Options.MemoDir), keyed by the inbox's and its
// archive's signatures (size, mtime, inode: filesig) and by what else the
// count depends on (the members' names, whether idle notices are
// summarised). An inbox whose signatures match is not read at all.
//
// The memo is only ever a shortcut: a memo file that is missing, not
// JSON, of another version, a link or too large is ignored and the
// inboxes are counted afresh, and a memo that cannot be written is simply
// not written. The person never sees an error from it.
//
// Blind spot, as make's: an inbox rewritten in place to the same size
// within the same mtime keeps its signature. A signature is stored only
// once the file's mtime is memoSettle old, so a file system whose mtime
// is coarse (a second, two) cannot hide a second write in the same tick;
// what remains is a write that sets the mtime back on purpose.

// memoVersion is the memo file's layout; another one is ignored.
const memoVersion = 1

const (
	// memoSettle: a file written more recently than this is counted but
	// not memoised (see above).
	memoSettle = 2 * time.Second
	// memoMaxFile bounds what is read of a memo file: one larger is
	// ignored, so a planted huge file costs nothing.
	memoMaxFile = 4 << 20
	// memoMaxRecent and memoMaxRequests bound one inbox's entry: a lead
	// inbox with more recent unread messages or request text than this is
	// counted every time instead.
	memoMaxRecent   = 256
	memoMaxRequests = 1 << 20
)

type memoFile struct {
	V       int                   `json:"v"`
	Inboxes map[string]*memoEntry `json:"inboxes"` // by inbox path
}

// memoEntry is what a members-only snapshot took from one inbox and its
// archive.
type memoEntry struct {
	Inbox      string     `json:"inbox"`   // filesig key of the inbox
	Archive    string     `json:"archive"` // and of its archive ("" when absent)
	Names      []string   `json:"names"`   // the members, in config order
	Summarises bool       `json:"summarises"`
	Unread     int        `json:"unread"`
	Mail       []memoMail `json:"mail"` // per name
	Skipped    []string   `json:"skipped,omitempty"`
	Lead       *memoLead  `json:"lead,omitempty"`
}

type memoMail struct {
	IdleSeen     bool      `json:"idleSeen,omitempty"`
	LastIdle     time.Time `json:"lastIdle,omitzero"`
	LastActivity time.Time `json:"lastActivity,omitzero"`
	IdleReason   string    `json:"idleReason,omitempty"`
	IdleSummary  string    `json:"idleSummary,omitempty"`
}

// memoLead is what the lead's inbox adds. The lead-inbox note counts the
// unread messages at least LeadInboxMinAge old, which depends on the time
// of the look: the memo keeps the count of those already old at AsOf and
// the times of the others, so a later look counts them again without the
// inbox.
type memoLead struct {
	AsOf     time.Time    `json:"asOf"`
	Old      int          `json:"old"`
	Recent   []time.Time  `json:"recent,omitempty"`
	Requests leadRequests `json:"requests"` // the entries approval keeps
	// Read: Requests are the lead's, read without error (approval may
	// use them).
	Read bool `json:"read"`
}

// unreadAt is the lead-inbox count at now; false when now is before the
// memo's look (a clock set back), which then counts afresh.
func (l *memoLead) unreadAt(now time.Time) (int, bool) {
	if now.Before(l.AsOf) {
		return 0, false
	}
	n := l.Old
	for _, r := range l.Recent {
		if now.Sub(r) >= LeadInboxMinAge {
			n++
		}
	}
	return n, true
}

// memo is one snapshot's use of a team's memo file.
type memo struct {
	path  string // "" when there is no memo folder
	old   map[string]*memoEntry
	next  map[string]*memoEntry
	dirty bool
}

// openMemo reads the team's memo from dir; anything odd is an empty memo.
func openMemo(dir, teamDir string) *memo {
	m := &memo{old: map[string]*memoEntry{}, next: map[string]*memoEntry{}}
	if dir == "" {
		return m
	}
	m.path = memoPath(dir, teamDir)
	f, err := safefs.OpenFile(m.path, os.O_RDONLY, 0)
	if err != nil {
		return m
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, memoMaxFile+1))
	if err != nil || len(b) > memoMaxFile {
		return m
	}
	var mf memoFile
	if json.Unmarshal(b, &mf) != nil || mf.V != memoVersion {
		return m
	}
	for k, e := range mf.Inboxes {
		if e != nil {
			m.old[k] = e
		}
	}
	return m
}

// MemoFolder is where, below paneteam's state folder, the inbox memos
// are kept.
const MemoFolder = "inbox-counts"

// ForgetMemo removes the memo of the team in teamDir, if any, from the
// memo folder of state folder state: a team that is deleted leaves
// nothing of it in paneteam's state.
func ForgetMemo(state, teamDir string) error {
	err := os.Remove(memoPath(filepath.Join(state, MemoFolder), teamDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// memoPath is the team's memo file in dir, named by its folder.
func memoPath(dir, teamDir string) string {
	// One team is one memo however its root was spelled (through a link
	// or not), so cleanup finds the memo status wrote. The folder above
	// the team's is resolved, not the team's own: cleanup forgets the memo
	// once that is gone.
	if parent, err := filepath.EvalSymlinks(filepath.Dir(teamDir)); err == nil {
		teamDir = filepath.Join(parent, filepath.Base(teamDir))
	}
	sum := sha256.Sum256([]byte(teamDir))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")
}

// inboxSigs are the keys of an inbox and its archive, from lstat (a link
// has its own inode: one planted in place of a counted inbox never
// matches), and whether both have settled.
func inboxSigs(path string, now time.Time) (inbox, archive string, settled bool) {
	sig := func(p string) (filesig.Sig, bool) {
		st, err := os.Lstat(p)
		if err != nil {
			return filesig.Sig{}, true // absent: nothing to settle
		}
		s := filesig.Of(st)
		return s, s.Settled(now, memoSettle)
	}
	in, ok1 := sig(path)
	ar, ok2 := sig(mailbox.ArchivePath(path))
	return in.Key(), ar.Key(), ok1 && ok2 && in.Exists
}

// lookup returns the memo of the inbox at path if it was taken of the
// same files for the same members, and keeps it for the next look.
func (m *memo) lookup(path, inbox, archive string, names []string, summarises bool) *memoEntry {
	e := m.old[path]
	if e == nil || inbox == "" || e.Inbox != inbox || e.Archive != archive || e.Summarises != summarises ||
		len(e.Names) != len(names) || len(e.Mail) != len(names) {
		return nil
	}
	for i, n := range names {
		if e.Names[i] != n {
			return nil
		}
	}
	m.next[path] = e
	return e
}

// store keeps e for the next look.
func (m *memo) store(path string, e *memoEntry) {
	if e.Lead != nil && (len(e.Lead.Recent) > memoMaxRecent ||
		requestBytes(e.Lead.Requests.Inbox)+requestBytes(e.Lead.Requests.Archived) > memoMaxRequests) {
		return
	}
	m.next[path] = e
	m.dirty = true
}

func requestBytes(msgs []mailbox.Message) int {
	n := 0
	for _, r := range msgs {
		n += len(r.Text)
	}
	return n
}

// save writes the memo when it changed: atomically, created 0600 in a
// 0700 folder, never through a link. Failures leave the memo unwritten.
func (m *memo) save() {
	if m.path == "" || (!m.dirty && len(m.next) == len(m.old)) {
		return
	}
	dir := filepath.Dir(m.path)
	if os.MkdirAll(filepath.Dir(dir), 0o700) != nil || safefs.Mkdir(dir, 0o700) != nil {
		return
	}
	b, err := json.Marshal(memoFile{V: memoVersion, Inboxes: m.next})
	if err != nil || len(b) > memoMaxFile {
		return
	}
	tmp := m.path + "." + rand.Text()[:10] + ".tmp"
	if safefs.WriteFile(tmp, b, 0o600) != nil {
		os.Remove(tmp)
		return
	}
	if os.Rename(tmp, m.path) != nil { // a link at m.path is replaced, not followed
		os.Remove(tmp)
	}
}

func memoMailOf(t tally) []memoMail {
	out := make([]memoMail, len(t.mail))
	for i, mm := range t.mail {
		out[i] = memoMail{mm.idleSeen, mm.lastIdle, mm.lastActivity, mm.idleReason, mm.idleSummary}
	}
	return out
}

func (e *memoEntry) tally(names []string) tally {
	t := tally{names: names, mail: make([]memberMail, len(e.Mail))}
	for i, mm := range e.Mail {
		t.mail[i] = memberMail{mm.IdleSeen, mm.LastIdle, mm.LastActivity, mm.IdleReason, mm.IdleSummary}
	}
	return t
}

// isRequest is approval.Find's filter: the lead's inbox entries that can
// be requests.
func isRequest(text string) bool { return strings.Contains(text, "_request") }
