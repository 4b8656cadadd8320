package usage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

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
	// Skipping says the offset is inside a line too long to read, or
	// one with a hole of a sparse file: it is moved past, to its end.
	Skipping bool `json:"skipping,omitempty"`
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

// MaxLine is the longest line read; a longer one is moved past, counted
// as unreadable (Spend.Skipped). Claude Code writes a tool result or a
// pasted image or PDF whole on one line, base64 in JSON: the Messages API
// takes requests of at most 32 MB, so no block it was sent exceeds that,
// and 48 MiB leaves room for JSON's escapes. The lines that carry usage
// (an assistant reply's blocks) are small: a line over it is lost to no
// count.
const MaxLine = 48 << 20

// ReadBudget is about how many bytes one read of a source reads (a line
// underway is finished, up to MaxLine): a status-line refresh, a new
// process every few seconds, then costs a bounded time however much a
// teammate wrote, and the next read goes on from where this one stopped
// (Spend.Behind says it has more to read). A real transcript, tens of
// megabytes after a long session, is read whole at once.
const ReadBudget = 64 << 20

// holeCost is what a jump over a hole of a sparse file counts against
// the budget: a file of many small holes costs its system calls.
const holeCost = 64 << 10

// lineCap and readBudget are MaxLine and ReadBudget, lowered by tests.
var lineCap, readBudget int64 = MaxLine, ReadBudget

// Advance reads what was appended to the file since the last call: whole
// lines only (a line still being written is read next time), about
// ReadBudget bytes at most. The file is opened without following a link.
func (c *Cursor) Advance() error {
	_, _, err := c.advance(readBudget)
	return err
}

// advance reads whole lines from the cursor's offset until about budget
// bytes are used (used; more when the file has more to read). A line
// longer than lineCap, or one reaching into a hole of a sparse file (its
// zeros are no JSON; a CLI appending its records leaves none), is counted
// unreadable and moved past: Skipping keeps, across reads, that the
// offset is inside it, and a hole is jumped over without reading it.
func (c *Cursor) advance(budget int64) (used int64, more bool, err error) {
	f, err := safefs.OpenFile(c.Path, os.O_RDONLY, 0)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, false, err
	}
	dev, ino := fileID(st)
	size := st.Size()
	if dev != c.Dev || ino != c.Ino || size < c.Offset {
		*c = Cursor{Path: c.Path, Format: c.Format, Dev: dev, Ino: ino}
	}
	for c.Offset < size {
		if used >= budget {
			return used, true, nil
		}
		end := holeAt(f, c.Offset, size)
		if end > c.Offset {
			n, done, err := c.lines(f, end, budget-used)
			used += n
			if err != nil {
				return used, false, fmt.Errorf("read %s: %w", c.Path, err)
			}
			if !done {
				continue // the budget is spent (checked above)
			}
			if end == size {
				return used, false, nil // a last line without its newline is not finished
			}
		}
		// A hole at end: the line it is in is unreadable; go on at the
		// next data.
		if !c.Skipping {
			c.Spend.Skipped++
			c.Skipping = true
		}
		c.Offset = dataAt(f, end, size)
		used += holeCost
	}
	return used, false, nil
}

// lines reads the lines of f from the offset up to end (no hole before
// it) until about budget bytes are read: done when end was reached, the
// offset then at the start of the line unfinished there (or at end, when
// skipping).
func (c *Cursor) lines(f *os.File, end, budget int64) (used int64, done bool, err error) {
	r := bufio.NewReaderSize(io.NewSectionReader(f, c.Offset, end-c.Offset), 64<<10)
	var line []byte
	for {
		if used >= budget && len(line) == 0 {
			return used, false, nil
		}
		chunk, err := r.ReadSlice('\n')
		used += int64(len(chunk))
		ended := err == nil
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, io.EOF) {
			return used, false, err
		}
		switch {
		case c.Skipping:
			c.Offset += int64(len(chunk))
			c.Skipping = !ended
		case int64(len(line)+len(chunk)) > lineCap:
			c.Spend.Skipped++
			c.Offset += int64(len(line) + len(chunk))
			c.Skipping, line = !ended, nil
		default:
			line = append(line, chunk...)
			if ended {
				c.Offset += int64(len(line))
				c.line(bytes.TrimSpace(line))
				line = line[:0]
			}
		}
		if errors.Is(err, io.EOF) {
			return used, true, nil
		}
	}
}

// holeAt is where the first hole of f at or after off starts, size when
// there is none or the system cannot say (SEEK_HOLE: Linux, macOS and the
// BSDs; elsewhere, or on a file system without holes, the whole file is
// data).
func holeAt(f *os.File, off, size int64) int64 {
	h, err := unix.Seek(int(f.Fd()), off, unix.SEEK_HOLE)
	if err != nil || h < off || h > size {
		return size
	}
	return h
}

// dataAt is where the data of f after the hole at off resumes, size when
// only a hole is left.
func dataAt(f *os.File, off, size int64) int64 {
	d, err := unix.Seek(int(f.Fd()), off, unix.SEEK_DATA)
	if err != nil || d < off || d > size {
		return size
	}
	return d
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
