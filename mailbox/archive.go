package mailbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// Claude Code never prunes an inbox: every write parses and rewrites the
// whole file, and delivery stalls near 1 MB (docs/PROTOCOL.md §6). paneteam
// moves read messages out of the inbox, on each of its own writes, into an
// archive beside it: "<agent>.archive.jsonl", one compact JSON message per
// line. Agent file names are sanitised to [a-zA-Z0-9_-], so a name with a
// '.' can never be another agent's inbox, and Claude Code, which only looks
// for "<agent>.json", never reads or writes it.
//
// The archive is only ever appended to, by a holder of the inbox's lock, and
// the append is fsynced before the inbox is rewritten without those
// messages: a crash in between leaves a message in both places (the archive
// reader drops the duplicate), never in neither.

// ArchivePath is the archive of the inbox at inboxPath.
func ArchivePath(inboxPath string) string {
	return strings.TrimSuffix(inboxPath, ".json") + ".archive.jsonl"
}

// ArchivePath is this inbox's archive.
func (in *Inbox) ArchivePath() string { return ArchivePath(in.Path) }

// Archived returns the archived messages, oldest first. A missing archive
// is empty. A line that does not parse is skipped: only an append cut short
// by a crash leaves one (appendDurably ends it with a newline), and the
// messages of that append were still in the inbox, which is rewritten only
// after the append is on disk, so they were archived again by a later write.
func (in *Inbox) Archived() ([]Message, error) {
	f, err := safefs.OpenFile(in.ArchivePath(), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read archive: %w", err)
	}
	defer f.Close()
	var out []Message
	seen := map[messageKey]bool{}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		b, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return out, nil // b, if any, is an append still in progress
		}
		if err != nil {
			return nil, fmt.Errorf("read archive %s: %w", in.ArchivePath(), err)
		}
		var m Message
		if json.Unmarshal(bytes.TrimSpace(b), &m) != nil {
			continue
		}
		// The same crash archives the same messages twice; one copy is kept.
		if k := keyOf(m); !seen[k] {
			seen[k] = true
			out = append(out, m)
		}
	}
}

// prune splits msgs into those that stay in the inbox (unread) and appends
// the read ones to the archive, durably, before returning. The caller holds
// the inbox lock and writes the returned messages as the new inbox.
func (in *Inbox) prune(msgs []Message) ([]Message, error) {
	keep := make([]Message, 0, len(msgs))
	var buf bytes.Buffer
	for _, m := range msgs {
		if !m.Read {
			keep = append(keep, m)
			continue
		}
		b, err := jsonx.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("archive message: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := in.archive(buf.Bytes()); err != nil {
		return nil, err
	}
	return keep, nil
}

// archive appends lines (compact messages, one per line) to the archive
// durably; the caller then rewrites the inbox without them.
func (in *Inbox) archive(lines []byte) error {
	if len(lines) == 0 {
		return nil
	}
	if err := appendDurably(in.ArchivePath(), lines); err != nil {
		return fmt.Errorf("archive read messages of %s (the inbox is unchanged): %w", in.Path, err)
	}
	return nil
}

// appendDurably appends data to path (created 0600) and fsyncs it. A link
// planted at path is refused, not followed: it would append teammates'
// messages to whatever it leads to, a shell's start-up file for one. A file
// whose last line was cut short by a crash first gets its newline, so the
// torn line stays one bad line instead of swallowing the next message.
func appendDurably(path string, data []byte) error {
	f, err := safefs.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, lockfile.FilePerm)
	if err != nil {
		return err
	}
	if torn, err := endsTorn(f); err != nil {
		f.Close()
		return err
	} else if torn {
		data = append([]byte{'\n'}, data...)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func endsTorn(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, st.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}
