package mailbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// An inbox nobody reads can grow to tens of megabytes (Claude Code never
// prunes one, and a teammate can write without pause). Reading it whole
// to count it costs its size several times over in memory: the file, every
// message, and the copies the caller keeps. Each reads it as a stream
// instead, one entry at a time, so what a count costs in memory is one
// entry, whatever the inbox's size.

// Each calls fn for every message of the inbox, in order, as Entries
// would return them, without holding more than one entry in memory; it
// returns the entries it could not read (see SkippedEntry), as Entries
// does. reset is called before every pass: a pass that meets a torn
// write, or an inbox SummarisesIdle rewrites, starts over, so fn must
// forget what it was given before. Errors are Entries' own, word for word:
// a file that is not an array as Claude Code writes it is read as Entries
// reads it.
func (in *Inbox) Each(reset func(), fn func(Message)) ([]*SkippedEntry, error) {
	skipped, stale, err := in.eachPass(reset, fn)
	if err != nil || !stale || !in.SummarisesIdle {
		return skipped, err
	}
	if n, err := in.summarise(context.Background(), true); err != nil || n == 0 {
		return skipped, nil
	}
	skipped, _, err = in.eachPass(reset, fn)
	return skipped, err
}

// eachPass is one read of the inbox as a stream, and whether it holds an
// idle notice a later one supersedes (StaleIdle). When the stream is not
// a well-formed array it falls back to readEntries, whose retries and
// errors are what every reader has always seen.
func (in *Inbox) eachPass(reset func(), fn func(Message)) ([]*SkippedEntry, bool, error) {
	reset()
	var st staleScan
	add := func(m Message) { st.add(m); fn(m) }
	var skipped []*SkippedEntry
	err := errNotBrief
	if in.Brief {
		skipped, err = in.streamBrief(add)
	}
	if errors.Is(err, errNotBrief) {
		if in.Brief {
			reset()
			st = staleScan{}
		}
		skipped, err = in.stream(add)
	}
	if err == nil {
		return skipped, st.found, nil
	}
	if !errors.Is(err, errNotStream) {
		return nil, false, err
	}
	reset()
	e, err := in.readEntries()
	if err != nil {
		return nil, false, err
	}
	for _, m := range e.msgs {
		fn(m)
	}
	return e.skipped(in.Path), len(StaleIdle(e.msgs)) > 0, nil
}

// errNotStream: the inbox is not a plain JSON array of entries this time
// (torn, null, not JSON): readEntries decides what it is.
var errNotStream = errors.New("not an inbox array")

// stream decodes the inbox entry by entry. Each entry is decoded exactly
// as decodeEntries decodes it, so the same entries are read and skipped.
func (in *Inbox) stream(fn func(Message)) ([]*SkippedEntry, error) {
	if err := in.checkFolder(); err != nil {
		return nil, err
	}
	f, err := safefs.OpenFile(in.Path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err // readEntries' error, word for word, through the fallback
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, nil // empty: Claude Code creates an inbox in two steps
	}
	if err != nil || tok != json.Delim('[') {
		return nil, errNotStream
	}
	var skipped []*SkippedEntry
	for i := 0; dec.More(); i++ {
		// A fresh buffer per entry: a Message keeps its entry's bytes
		// (for the keys it does not know), so one buffer cannot be reused.
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, errNotStream
		}
		var m Message
		if err := json.Unmarshal(raw, &m); err != nil {
			skipped = append(skipped, &SkippedEntry{Path: in.Path, Index: i + 1,
				Raw: raw, Err: err})
			continue
		}
		m.at = i + 1
		fn(m)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return nil, errNotStream
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errNotStream // something after the array
	}
	return skipped, nil
}

// staleScan is StaleIdle for a stream: whether an unread plain idle notice
// is followed by a later idle notice from the same sender.
type staleScan struct {
	pending map[string]bool // senders with an unread plain idle notice so far
	found   bool
}

func (s *staleScan) add(m Message) {
	if s.found || !strings.Contains(m.Text, TypeIdle) {
		return
	}
	p, ok := Parse(m.Text)
	if !ok || p.Type != TypeIdle {
		return
	}
	if s.pending[m.From] {
		s.found = true
		return
	}
	n, _ := p.Value.(*IdleNotification)
	if !m.Read && plainIdle(n) {
		if s.pending == nil {
			s.pending = map[string]bool{}
		}
		s.pending[m.From] = true
	}
}

// EachArchived calls fn for every line of the archive that reads as a
// message, in order, one line in memory at a time. Unlike Archived it
// does not drop the copies a crash left twice: a reader that only counts
// or takes the latest (the status line) is not changed by them.
func (in *Inbox) EachArchived(fn func(Message)) error {
	f, err := safefs.OpenFile(in.ArchivePath(), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read archive: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		b, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return nil // b, if any, is an append still in progress
		}
		if err != nil {
			return fmt.Errorf("read archive %s: %w", in.ArchivePath(), err)
		}
		line := bytes.TrimSpace(b)
		if in.Brief {
			if end, err := scanValue(line, 0, 0); err == nil && end == len(line) {
				if m, ok := briefMessage(line); ok {
					fn(m)
					continue
				}
			}
		}
		var m Message
		if json.Unmarshal(line, &m) == nil {
			fn(m)
		}
	}
}
