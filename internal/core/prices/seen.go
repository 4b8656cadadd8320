package prices

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// Seen is the prices of the models already looked up, kept in a small
// file of paneteam's state folder: the status line, a new process every
// few seconds, prices a team's models without parsing the table, which
// is parsed again only when a new model shows, the person's prices.json
// changes, paneteam's table changes, or the day does (a dated price may
// have come into force).
type Seen struct {
	// File is the kept prices; ConfigDir is paneteam's config folder
	// (its prices.json); "": the shipped table alone.
	File      string
	ConfigDir string

	loaded  bool
	key     string
	models  map[string]*Price
	changed bool
	table   *Table
	err     error
}

// NewSeen keeps the prices looked up in the state folder state.
func NewSeen(state, configDir string) *Seen {
	return &Seen{File: filepath.Join(state, "usage", "prices-seen.json"), ConfigDir: configDir}
}

type seenFile struct {
	Key    string            `json:"key"`
	Models map[string]*Price `json:"models"` // null: no price
}

// key says which prices the kept ones were read from.
func (s *Seen) tableKey() string {
	head := shipped[:min(len(shipped), 200)]
	key := fmt.Sprintf("%d %s %s", len(shipped), head, time.Now().UTC().Format(time.DateOnly))
	if s.ConfigDir != "" {
		if st, err := os.Lstat(filepath.Join(s.ConfigDir, OverrideFile)); err == nil {
			key += fmt.Sprintf(" %d %d", st.Size(), st.ModTime().UnixNano())
		}
	}
	return key
}

func (s *Seen) load() {
	if s.loaded {
		return
	}
	s.loaded, s.key, s.models = true, s.tableKey(), map[string]*Price{}
	b, err := safefs.ReadFile(s.File)
	var f seenFile
	if err == nil && json.Unmarshal(b, &f) == nil && f.Key == s.key && f.Models != nil {
		s.models = f.Models
	}
}

// Of is the price of model name, from the kept prices or else the table.
func (s *Seen) Of(name string) (Price, bool) {
	s.load()
	if p, ok := s.models[name]; ok {
		if p == nil {
			return Price{}, false
		}
		return *p, true
	}
	if s.table == nil && s.err == nil {
		t, err := Load(s.ConfigDir)
		s.table, s.err = &t, err
	}
	if s.err != nil {
		return Price{}, false // not kept: the next look may read a mended prices.json
	}
	p, ok := s.table.Of(name)
	s.models[name], s.changed = nil, true
	if ok {
		s.models[name] = &p
	}
	return p, ok
}

// Err is why the table could not be read (the person's prices.json).
func (s *Seen) Err() error { return s.err }

// Save keeps what was looked up, when anything new was.
func (s *Seen) Save() error {
	if !s.changed {
		return nil
	}
	b, err := json.Marshal(seenFile{Key: s.key, Models: s.models})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.File), lockfile.DirPerm); err != nil {
		return err
	}
	if err := lockfile.WriteAtomic(s.File, b); err != nil {
		return fmt.Errorf("keep the prices looked up: %w", err)
	}
	s.changed = false
	return nil
}
