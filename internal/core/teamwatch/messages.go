package teamwatch

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paneteam/paneteam/internal/sys/filesig"
	"github.com/paneteam/paneteam/internal/term/shorten"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// MessageID identifies one message wherever it lies. Claude Code
// and paneteam give their entries a msg_id (docs/PROTOCOL.md §6); older
// writers do not, and then sender, timestamp and text identify it (the
// key Claude Code itself prunes delivered entries by). A digest
// keeps the set of seen messages small however long the texts are.
type MessageID [sha256.Size]byte

func idOf(m mailbox.Message) MessageID {
	h := sha256.New()
	if m.MsgID != "" {
		fmt.Fprintf(h, "msg_id\x00%s", m.MsgID)
		var out MessageID
		h.Sum(out[:0])
		return out
	}
	for _, s := range []string{m.From, m.Timestamp, m.Text} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	var out MessageID
	h.Sum(out[:0])
	return out
}

// Message is one message seen in an inbox or its archive.
type Message struct {
	ID   MessageID `json:"-"`
	From string    `json:"from"`
	// To is the inbox's owner.
	To string `json:"to"`
	// Kind is the protocol frame type, or "message" for plain text.
	Kind    string    `json:"kind"`
	Summary string    `json:"summary,omitempty"`
	Time    time.Time `json:"time"`
	Read    bool      `json:"read"`
	// Archived: found in paneteam's archive beside the inbox.
	Archived bool `json:"archived,omitempty"`

	raw mailbox.Message
}

// PlainKind is the Kind of a message that is not a protocol frame.
const PlainKind = "message"

// summaryMax bounds the summary shown for a message that has none: the
// first line of its text, cut.
const summaryMax = 120

func messageOf(to string, m mailbox.Message, archived bool) Message {
	out := Message{ID: idOf(m), From: m.From, To: to, Kind: PlainKind, Summary: m.Summary, Time: m.Time(),
		Read: m.Read, Archived: archived, raw: m}
	if p, ok := mailbox.Parse(m.Text); ok {
		out.Kind = p.Type
		if out.Summary == "" {
			out.Summary = frameSummary(p)
		}
	} else if out.Summary == "" {
		out.Summary = firstLine(m.Text)
	}
	return out
}

// frameSummary is a short account of a protocol frame (Claude Code,
// docs/PROTOCOL.md §8).
func frameSummary(p mailbox.Protocol) string {
	var f struct {
		RequestID  string `json:"requestId"`
		ReqID      string `json:"request_id"`
		Subtype    string `json:"subtype"`
		Summary    string `json:"summary"`
		Reason     string `json:"reason"`
		IdleReason string `json:"idleReason"`
		ToolName   string `json:"tool_name"`
		Desc       string `json:"description"`
		Plan       string `json:"planFilePath"`
		Subject    string `json:"subject"`
		TaskID     string `json:"taskId"`
		Host       struct {
			Host string `json:"host"`
		} `json:"hostPattern"`
	}
	_ = json.Unmarshal(p.Raw, &f)
	var parts []string
	for _, s := range []string{f.RequestID, f.ReqID, f.Subtype, f.IdleReason, f.ToolName, f.Host.Host, f.Plan, f.TaskID, f.Subject, f.Desc, f.Summary, f.Reason} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return firstLine(strings.Join(parts, ": "))
}

// firstLine is s's first line, cut; " …" says that lines were left out
// of a line short enough to be whole.
func firstLine(s string) string {
	line := shorten.FirstLine(s, summaryMax)
	if strings.Contains(strings.TrimSpace(s), "\n") && utf8.RuneCountInString(line) <= summaryMax {
		return line + " …"
	}
	return line
}

type cachedFile struct {
	sig     filesig.Sig
	msgs    []mailbox.Message
	skipped []*mailbox.SkippedEntry
}

// mailReader reads every inbox and archive of a team folder, and its
// config.json, re-reading only files whose size, mtime or inode changed:
// a monitor looks often (a watcher every second, however quiet the
// team), and archives only grow.
type mailReader struct {
	files  map[string]cachedFile
	cfgSig filesig.Sig
	cfg    *team.Config
}

// config is team.Load of path, or the config last loaded while the
// file's signature is the same (taken before the read, so a change
// during it is read again next time). Nothing a snapshot does changes
// the Config it is given.
func (r *mailReader) config(path string) (*team.Config, error) {
	sig := filesig.Stat(path)
	if sig.Exists && r.cfg != nil && sig == r.cfgSig {
		return r.cfg, nil
	}
	cfg, err := team.Load(path)
	if err != nil {
		r.cfg = nil
		return nil, err
	}
	r.cfg, r.cfgSig = cfg, sig
	return cfg, nil
}

func newMailReader() *mailReader { return &mailReader{files: map[string]cachedFile{}} }

// inboxFiles lists the agents with an inbox or archive in dir, by the
// file stem (the sanitised agent name).
func inboxFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list inboxes: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		n := e.Name()
		stem, ok := strings.CutSuffix(n, ".archive.jsonl")
		if !ok {
			stem, ok = strings.CutSuffix(n, ".json")
		}
		if !ok || e.IsDir() || strings.HasPrefix(n, ".") || strings.Contains(stem, ".") || seen[stem] {
			continue
		}
		seen[stem] = true
		out = append(out, stem)
	}
	sort.Strings(out)
	return out, nil
}

// read returns the messages of the inbox at path and of its archive. The
// inbox is read before the archive: paneteam appends to the archive before
// it rewrites the inbox without those messages, so a message being moved
// is seen in one or both, never in neither.
// A summarising inbox (post.SummarisesIdle) archives stale idle notices
// as it is read.
func (r *mailReader) read(path string, summarise bool) (inbox, archived []mailbox.Message, skipped []*mailbox.SkippedEntry, err error) {
	in := mailbox.New(path, lockfile.Options{})
	in.SummarisesIdle = summarise
	inbox, skipped, err = r.cached(path, in.Entries)
	if err != nil {
		return nil, nil, nil, err
	}
	archived, _, err = r.cached(in.ArchivePath(), func() ([]mailbox.Message, []*mailbox.SkippedEntry, error) {
		msgs, err := in.Archived()
		return msgs, nil, err
	})
	return inbox, archived, skipped, err
}

// cached keeps the last good read of a file; a file that does not parse
// for now (Claude Code 2.1.88 rewrites in place) keeps its last messages.
func (r *mailReader) cached(path string, load func() ([]mailbox.Message, []*mailbox.SkippedEntry, error)) ([]mailbox.Message, []*mailbox.SkippedEntry, error) {
	sig := filesig.Stat(path)
	if c, ok := r.files[path]; ok && c.sig == sig {
		return c.msgs, c.skipped, nil
	}
	msgs, skipped, err := load()
	if err != nil {
		if c, ok := r.files[path]; ok {
			return c.msgs, c.skipped, fmt.Errorf("%s: %w (showing it as it was)", filepath.Base(path), err)
		}
		return nil, nil, err
	}
	r.files[path] = cachedFile{sig: sig, msgs: msgs, skipped: skipped}
	return msgs, skipped, nil
}
