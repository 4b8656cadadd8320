package lockfile

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// FilePerm and DirPerm are the modes of everything paneteam creates: team
// files hold prompts and messages, which are nobody else's business.
const (
	FilePerm os.FileMode = 0o600
	DirPerm  os.FileMode = 0o700
)

// WriteAtomic replaces path with data so that a reader that takes no lock
// (Claude Code's inbox poller does not) sees either the old file or the new
// one, never a torn one: a temp file in the same directory, fsync, rename,
// then fsync of the directory so the rename survives a crash.
func WriteAtomic(path string, data []byte) error {
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if rand.N(sweepOneIn) == 0 {
		sweepTemps(path)
	}
	return syncDir(filepath.Dir(path))
}

// abandonedAfter is the age past which a temp file cannot belong to a
// writer still at work: writes take milliseconds.
const abandonedAfter = time.Minute

// sweepOneIn: one write in this many sweeps. Reading the folder on every
// write would cost every send for what only a killed writer leaves.
const sweepOneIn = 8

// sweepTemps removes temp files of path that a killed writer left behind,
// so a folder shared by many writers does not fill with them.
func sweepTemps(path string) {
	dir, base := filepath.Split(path)
	matches, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(base)+".*.tmp"))
	for _, m := range matches {
		if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() && time.Since(st.ModTime()) > abandonedAfter {
			os.Remove(m)
		}
	}
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CreateExclusive creates path holding data, atomically and only if nothing
// is there yet: it links a complete temp file into place, so no reader ever
// sees the file empty. It reports created=false when path already existed.
//
// Callers run it before every inbox send and task-list lock, where the file
// almost always exists: that case returns before writing and fsyncing a
// temp file only to throw it away. The link stays the atomic step.
func CreateExclusive(path string, data []byte) (created bool, err error) {
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	}
	tmp, err := writeTemp(path, data)
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	return true, syncDir(filepath.Dir(path))
}

func writeTemp(path string, data []byte) (string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// The leading dot and the .tmp ending keep the temp file out of every
	// listing that looks for *.json (task lists, inboxes).
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp made it 0600 (FilePerm), so no chmod.
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return name, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	// Some file systems refuse fsync on a directory; the rename is done
	// either way, so that is not worth failing a write for.
	_ = d.Sync()
	return nil
}
