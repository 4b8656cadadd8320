package worktree

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// Record is paneteam's own note of a teammate's worktree, kept in its
// state folder: never in a team's config.json, from which Claude Code
// removes (git worktree remove --force) the worktrees of a team it
// deletes.
type Record struct {
	Repo   string `json:"repo"` // the repository's main working tree
	Path   string `json:"path"`
	Branch string `json:"branch"`
	// Base is the commit the worktree started from.
	Base   string `json:"base"`
	Root   string `json:"root"` // the team root (Claude's config folder)
	Team   string `json:"team"`
	Member string `json:"member"`
	// PID is the teammate's process; once it is gone, an untouched
	// worktree may go.
	PID int `json:"pid,omitempty"`
	// PIDStart is that process's start time (proc.StartTime): a pid
	// reused by another process is not the teammate.
	PIDStart string `json:"pidStart,omitempty"`
	Created  string `json:"created"` // RFC 3339, UTC
	// Via is what started the teammate: "" for the router ('paneteam
	// claude --worktree'), whose worktree goes when its process ends;
	// ViaSpawnPane, whose goes when it leaves the team.
	Via string `json:"via,omitempty"`
}

// ViaSpawnPane marks the record of a worktree spawn-pane --worktree gave.
const ViaSpawnPane = "spawn-pane"

// Records is the folder of worktree records in paneteam's state folder.
type Records struct {
	Dir string
}

// OpenRecords is the store in the state folder state.
func OpenRecords(state string) Records { return Records{Dir: filepath.Join(state, "worktrees")} }

func (s Records) file(path string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(path)))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:8])+".json")
}

func (s Records) ensure() error {
	if err := os.MkdirAll(s.Dir, lockfile.DirPerm); err != nil {
		return fmt.Errorf("make the worktree records' folder: %w", err)
	}
	if err := safefs.Dir(s.Dir); err != nil {
		return fmt.Errorf("worktree records: %w", err)
	}
	return nil
}

// Write records r, replacing the record of the same path; a record of
// that path already there keeps its base (a worktree taken over by a
// teammate of the same name started where the first one started).
func (s Records) Write(r Record) error {
	if r.Path == "" || r.Team == "" || r.Member == "" {
		return errors.New("a worktree record needs its path, team and teammate")
	}
	if err := s.ensure(); err != nil {
		return err
	}
	if old, err := s.Read(r.Path); err == nil && old != nil && old.Base != "" && old.Branch == r.Branch {
		r.Base = old.Base
	}
	if r.Created == "" {
		r.Created = time.Now().UTC().Format(time.RFC3339)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := lockfile.WriteAtomic(s.file(r.Path), append(b, '\n')); err != nil {
		return fmt.Errorf("record the worktree %s: %w", r.Path, err)
	}
	return nil
}

// Read returns the record of the worktree at path, nil when none.
func (s Records) Read(path string) (*Record, error) {
	b, err := safefs.ReadFile(s.file(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("worktree record %s: %w", s.file(path), err)
	}
	return &r, nil
}

// List returns every record, by team and teammate; one that cannot be
// read costs only itself.
func (s Records) List() ([]Record, []error) {
	files, err := filepath.Glob(filepath.Join(s.Dir, "*.json"))
	if err != nil {
		return nil, []error{err}
	}
	var out []Record
	var errs []error
	for _, f := range files {
		b, err := safefs.ReadFile(f)
		var r Record
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		if err == nil && s.file(r.Path) != f {
			err = errors.New("its name does not match its path")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("worktree record %s: %w", f, err))
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Team != out[j].Team {
			return out[i].Team < out[j].Team
		}
		return out[i].Member < out[j].Member
	})
	return out, errs
}

// OfTeam returns the records of team of root (Record.Root; a record with
// none matches any root), by teammate; one that cannot be read costs
// only itself.
func (s Records) OfTeam(root, team string) ([]Record, []error) {
	list, errs := s.List()
	var out []Record
	for _, r := range list {
		if r.Team == team && (r.Root == "" || root == "" || filepath.Clean(r.Root) == filepath.Clean(root)) {
			out = append(out, r)
		}
	}
	return out, errs
}

// Find returns the records of teammate member of team of root: one per
// repository it was given a worktree in, the newest first. None is no
// error.
func (s Records) Find(root, team, member string) ([]Record, error) {
	list, errs := s.OfTeam(root, team)
	var out []Record
	for _, r := range list {
		if r.Member == member {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created > out[j].Created })
	if len(out) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// Forget removes the record of the worktree at path.
func (s Records) Forget(path string) error {
	err := os.Remove(s.file(path))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget the worktree %s: %w", path, err)
	}
	return nil
}

// LockRepo holds the lock of the repository whose common git folder is
// common, so that teammates spawned at once add their worktrees one
// after the other (git's own lock refuses a second add meanwhile).
func (s Records) LockRepo(ctx context.Context, common string) (func() error, error) {
	if err := s.ensure(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(filepath.Clean(common)))
	target := filepath.Join(s.Dir, "repo-"+hex.EncodeToString(sum[:8]))
	if f, err := safefs.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		f.Close()
	}
	return lockfile.Lock(ctx, target, lockfile.Options{Timeout: 2 * time.Minute})
}

// Running reports whether r's teammate process is still the one that
// was recorded.
func (r Record) Running() bool { return proc.Alive(r.PID, r.PIDStart) }
