package usage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// UnknownError says why a member's usage is unknown (on another host, a
// program with no token source, nothing recorded yet, a file refused).
type UnknownError struct{ Why string }

func (e *UnknownError) Error() string { return e.Why }

// Store keeps the cursors of every file read in paneteam's state folder,
// so the next process (the status line's, a budget watcher's) reads only
// what was written since.
type Store struct{ Dir string }

// Folder is the store's folder in the state folder state.
func Folder(state string) string { return filepath.Join(state, "usage") }

// Open is the store in the state folder state.
func Open(state string) Store { return Store{Dir: Folder(state)} }

// Read returns what src's files hold now, reading only what was added
// since the last Read of each (by any process with this state folder).
// An *UnknownError says why the usage is unknown.
func (s Store) Read(src Source) (Spend, error) {
	return read(src, s.load, s.save)
}

// Tracker is a Source followed by one process (a budget watcher): its
// cursors stay in memory, and each Read reads only what was added since
// the previous one.
type Tracker struct {
	Source  Source
	cursors map[string]*Cursor
}

// Read is what the tracker's files hold now.
func (t *Tracker) Read() (Spend, error) {
	if t.cursors == nil {
		t.cursors = map[string]*Cursor{}
	}
	return read(t.Source, func(path string, f Format) *Cursor {
		if c := t.cursors[path]; c != nil {
			return c
		}
		c := &Cursor{Path: path, Format: f}
		t.cursors[path] = c
		return c
	}, func(*Cursor) error { return nil })
}

func read(src Source, load func(string, Format) *Cursor, save func(*Cursor) error) (Spend, error) {
	if src.Unknown != "" {
		return Spend{}, &UnknownError{Why: src.Unknown}
	}
	files := src.files()
	if len(files) == 0 {
		return Spend{}, &UnknownError{Why: "nothing recorded yet"}
	}
	var total Spend
	for _, f := range files {
		c := load(f, src.Format)
		before := c.Offset
		beforeIno := c.Ino
		if err := c.Advance(); err != nil {
			return Spend{}, &UnknownError{Why: fmt.Sprintf("%s not read: %v", f, err)}
		}
		if c.Offset != before || c.Ino != beforeIno {
			save(c) //nolint:errcheck // a cursor not kept costs only a longer read next time
		}
		total = total.Add(c.Spend)
	}
	return total, nil
}

// cursorPath is the file of path's cursor.
func (s Store) cursorPath(path string, f Format) string {
	sum := sha256.Sum256([]byte(string(f) + "\x00" + path))
	return filepath.Join(s.Dir, "cursors", hex.EncodeToString(sum[:12])+".json")
}

// load is path's cursor, or a new one: a cursor file that does not parse
// or names another file costs only a read from the start.
func (s Store) load(path string, f Format) *Cursor {
	b, err := safefs.ReadFile(s.cursorPath(path, f))
	var c Cursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.Path != path || c.Format != f {
		return &Cursor{Path: path, Format: f}
	}
	return &c
}

func (s Store) save(c *Cursor) error {
	dir := filepath.Join(s.Dir, "cursors")
	if err := os.MkdirAll(dir, lockfile.DirPerm); err != nil {
		return fmt.Errorf("keep how far %s was read: %w", c.Path, err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := lockfile.WriteAtomic(s.cursorPath(c.Path, c.Format), b); err != nil {
		return fmt.Errorf("keep how far %s was read: %w", c.Path, err)
	}
	return nil
}
