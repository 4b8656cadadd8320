package usage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

// recentFile holds a cursor's Recent replies, read only to advance it.
// Offset and Ino say which cursor they go with: a cursor and its replies
// written by two processes at once do not go together.
type recentFile struct {
	Ino    uint64  `json:"ino"`
	Offset int64   `json:"offset"`
	Recent []Reply `json:"recent"`
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
	return read(t.Source, func(path string, f Format, _ bool) *Cursor {
		if c := t.cursors[path]; c != nil {
			return c
		}
		c := &Cursor{Path: path, Format: f}
		t.cursors[path] = c
		return c
	}, func(*Cursor) error { return nil })
}

func read(src Source, load func(path string, f Format, recent bool) *Cursor, save func(*Cursor) error) (Spend, error) {
	if src.Unknown != "" {
		return Spend{}, &UnknownError{Why: src.Unknown}
	}
	files := src.files()
	if len(files) == 0 {
		return Spend{}, &UnknownError{Why: "nothing recorded yet"}
	}
	var total Spend
	// One budget for all of a source's files: a teammate that writes
	// many costs what one costs.
	budget := readBudget
	for _, f := range files {
		c := load(f, src.Format, false)
		if c.Unchanged() {
			total = total.Add(c.Spend)
			continue
		}
		c = load(f, src.Format, true)
		before := c.Offset
		beforeIno := c.Ino
		used, more, err := c.advance(budget)
		if err != nil {
			return Spend{}, &UnknownError{Why: fmt.Sprintf("%s not read: %v", f, err)}
		}
		budget -= used
		total.Behind = total.Behind || more
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
func (s Store) load(path string, f Format, recent bool) *Cursor {
	cp := s.cursorPath(path, f)
	b, err := safefs.ReadFile(cp)
	var c Cursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.Path != path || c.Format != f {
		return &Cursor{Path: path, Format: f}
	}
	if recent {
		// Without its replies, a cursor would count a repeat of the last
		// one again: read from the start instead.
		var r recentFile
		b, err := safefs.ReadFile(strings.TrimSuffix(cp, ".json") + ".recent.json")
		if err != nil || json.Unmarshal(b, &r) != nil || r.Ino != c.Ino || r.Offset != c.Offset {
			return &Cursor{Path: path, Format: f}
		}
		c.Recent = r.Recent
	}
	return &c
}

func (s Store) save(c *Cursor) error {
	dir := filepath.Join(s.Dir, "cursors")
	if err := os.MkdirAll(dir, lockfile.DirPerm); err != nil {
		return fmt.Errorf("keep how far %s was read: %w", c.Path, err)
	}
	cp := s.cursorPath(c.Path, c.Format)
	b, err := json.Marshal(recentFile{Ino: c.Ino, Offset: c.Offset, Recent: c.Recent})
	if err == nil {
		err = lockfile.WriteAtomic(strings.TrimSuffix(cp, ".json")+".recent.json", b)
	}
	if err == nil {
		b, err = json.Marshal(c)
	}
	if err == nil {
		err = lockfile.WriteAtomic(cp, b)
	}
	if err != nil {
		return fmt.Errorf("keep how far %s was read: %w", c.Path, err)
	}
	return nil
}

// Batch reads many sources at once (a team's members) with one file of
// cursors for all of their files: the status line, a new process every
// few seconds, opens one small file to learn that nothing changed,
// instead of one per transcript. A file that changed is read through
// the Store as Read does. Close keeps the batch's cursors.
type Batch struct {
	Store Store
	Key   string // names the batch's file (a team's root and name)
	heads map[string]*Cursor
	file  batchFile
	dirty bool
}

// batchFile is what a batch keeps: its cursors, and the sources its
// caller found (KeepSources) with the stamp they were found under.
type batchFile struct {
	Heads   []*Cursor         `json:"heads"`
	Stamp   string            `json:"stamp,omitempty"`
	Sources map[string]Source `json:"sources,omitempty"`
}

func (b *Batch) path() string {
	sum := sha256.Sum256([]byte(b.Key))
	return filepath.Join(b.Store.Dir, "batches", hex.EncodeToString(sum[:12])+".json")
}

// load reads the batch's file once; one that does not parse (or an
// older layout) is an empty batch, rebuilt from the Store's own cursors.
func (b *Batch) load() {
	if b.heads != nil {
		return
	}
	b.heads = map[string]*Cursor{}
	data, err := safefs.ReadFile(b.path())
	if err != nil || json.Unmarshal(data, &b.file) != nil {
		b.file = batchFile{}
		return
	}
	for _, c := range b.file.Heads {
		if c != nil {
			b.heads[string(c.Format)+"\x00"+c.Path] = c
		}
	}
}

// Sources are the sources kept with the batch under stamp, nil when
// none were or the stamp differs: the caller's way to skip finding them
// again (a team's launch records) while what they came from is as it was.
func (b *Batch) Sources(stamp string) map[string]Source {
	b.load()
	if stamp == "" || b.file.Stamp != stamp {
		return nil
	}
	return b.file.Sources
}

// KeepSources keeps srcs with the batch under stamp, for Sources.
func (b *Batch) KeepSources(stamp string, srcs map[string]Source) {
	b.load()
	b.file.Stamp, b.file.Sources, b.dirty = stamp, srcs, true
}

// Read is Store.Read, from the batch's cursors when the files are
// unchanged.
func (b *Batch) Read(src Source) (Spend, error) {
	b.load()
	return read(src, func(path string, f Format, recent bool) *Cursor {
		key := string(f) + "\x00" + path
		if c := b.heads[key]; c != nil && !recent {
			return c
		}
		c := b.Store.load(path, f, recent)
		if !recent {
			head := *c
			b.heads[key], b.dirty = &head, true
		}
		return c
	}, func(c *Cursor) error {
		head := *c
		head.Recent = nil
		b.heads[string(c.Format)+"\x00"+c.Path], b.dirty = &head, true
		return b.Store.save(c)
	})
}

// Close keeps the batch's cursors and sources, when any changed.
func (b *Batch) Close() error {
	if !b.dirty {
		return nil
	}
	heads := make([]*Cursor, 0, len(b.heads))
	for _, c := range b.heads {
		heads = append(heads, c)
	}
	b.file.Heads = heads
	data, err := json.Marshal(b.file)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(b.path()), lockfile.DirPerm); err != nil {
		return err
	}
	b.dirty = false
	return lockfile.WriteAtomic(b.path(), data)
}
