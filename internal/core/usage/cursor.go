package usage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// Format is how a file's lines are read: whose file it is.
type Format string

// The formats: one per CLI.
const (
	// Claude Code's transcript: one line per content block of a reply,
	// each repeating the reply's usage (counted once, by message id).
	Claude Format = "claude"
	// Codex's rollout: token_count events carrying the session's
	// cumulative totals (the last one is the total; never added up).
	Codex Format = "codex"
	// Gemini CLI's chat record: a message is written again as it is
	// updated (the last record of an id wins).
	Gemini Format = "gemini"
	// The usage paneteam's OpenCode plugin writes: one line per finished
	// reply (the last line of an id wins).
	OpenCode Format = "opencode"
)

// recentReplies is how many replies a cursor remembers by id. A reply's
// lines come together (its content blocks, its updates), so a short
// memory finds every repeat without keeping a long transcript's ids.
const recentReplies = 64

// Cursor is how far one file was read and what it held so far. Advance
// reads only what was written since; a file replaced or cut shorter is
// read again from its start.
type Cursor struct {
	Path   string `json:"path"`
	Format Format `json:"format"`
	Dev    uint64 `json:"dev"`
	Ino    uint64 `json:"ino"`
	Offset int64  `json:"offset"`
	Spend  Spend  `json:"spend"`
	// Recent are the last replies counted, by id: a reply met again
	// replaces what it counted. Kept apart from the rest (Store), as
	// only a file that grew needs them.
	Recent []Reply `json:"-"`
	// Total and Model are Codex's last cumulative totals and the model
	// of its current turn: a new total adds only its growth, to the
	// model in use when it grew.
	Total Tokens `json:"total"`
	Model string `json:"model,omitempty"`
}

// Reply is one model reply's usage.
type Reply struct {
	ID     string `json:"id"`
	Model  string `json:"model"`
	Tokens Tokens `json:"tokens"`
}

// Unchanged reports, from a stat that does not follow a link, whether
// the file is as the cursor left it: nothing to read.
func (c *Cursor) Unchanged() bool {
	st, err := os.Lstat(c.Path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	dev, ino := fileID(st)
	return dev == c.Dev && ino == c.Ino && st.Size() == c.Offset
}

// Advance reads what was appended to the file since the last call: whole
// lines only (a line still being written is read next time). The file is
// opened without following a link.
func (c *Cursor) Advance() error {
	f, err := safefs.OpenFile(c.Path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	dev, ino := fileID(st)
	if dev != c.Dev || ino != c.Ino || st.Size() < c.Offset {
		*c = Cursor{Path: c.Path, Format: c.Format, Dev: dev, Ino: ino}
	}
	if st.Size() == c.Offset {
		return nil
	}
	if _, err := f.Seek(c.Offset, io.SeekStart); err != nil {
		return fmt.Errorf("read %s: %w", c.Path, err)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return nil // a last line without its newline is not finished
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", c.Path, err)
		}
		c.Offset += int64(len(line))
		c.line(bytes.TrimSpace(line))
	}
}

// line counts one line; one that does not parse is skipped and counted.
func (c *Cursor) line(b []byte) {
	if len(b) == 0 {
		return
	}
	var rep Reply
	var ok bool
	var err error
	switch c.Format {
	case Claude:
		rep, ok, err = claudeLine(b)
	case Gemini:
		rep, ok, err = geminiLine(b)
	case OpenCode:
		rep, ok, err = openCodeLine(b)
	case Codex:
		err = c.codexLine(b)
	default:
		err = fmt.Errorf("unknown format %q", c.Format)
	}
	if err != nil {
		c.Spend.Skipped++
		return
	}
	if ok {
		c.count(rep)
	}
}

// count adds a reply, or, for one already counted, replaces what it
// counted.
func (c *Cursor) count(rep Reply) {
	for i, old := range c.Recent {
		if old.ID == rep.ID {
			c.Spend.add(old.Model, Tokens{}.Sub(old.Tokens), old.Tokens.Prompt(), -1)
			c.Spend.add(rep.Model, rep.Tokens, rep.Tokens.Prompt(), 1)
			c.Recent[i] = rep
			return
		}
	}
	c.Spend.add(rep.Model, rep.Tokens, rep.Tokens.Prompt(), 1)
	c.Recent = append(c.Recent, rep)
	if len(c.Recent) > recentReplies {
		c.Recent = append(c.Recent[:0], c.Recent[len(c.Recent)-recentReplies:]...)
	}
}

func fileID(st os.FileInfo) (dev, ino uint64) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Dev), uint64(s.Ino) //nolint:unconvert // Dev's type differs between systems
	}
	return 0, 0
}
