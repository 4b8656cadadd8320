// Package safefs opens the files of a folder that other processes write
// (a team's folder, a task folder, paneteam's state folder) without
// following a link planted in it.
//
// A teammate, a tool it runs or another host can put a symbolic link where
// paneteam expects an inbox, an archive or a lock's side file. Followed, it
// would make paneteam append a message to a shell's start-up file, or write
// over the start of some unrelated file. So below such a folder every file
// is opened with O_NOFOLLOW and checked to be a regular file, and every
// folder is checked, component by component, to be a directory and not a
// link. The folder itself and what lies above it may be links (/tmp on
// macOS, a remote host's team folder linked to its mount): only what lies
// below is refused.
//
// It is portable on purpose: O_NOFOLLOW and lstat exist on every Unix
// paneteam runs on, where openat2's RESOLVE_NO_SYMLINKS is Linux's alone.
package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// OddError is a file or folder paneteam will not use: a link, or not the
// kind of file it expects. Nothing was opened, created or written through it.
type OddError struct {
	Path  string // what was found
	Found string // "a symbolic link", "a named pipe", …
	Want  string // "a regular file" or "a directory"
}

func (e *OddError) Error() string {
	return fmt.Sprintf("%s is %s, not %s: paneteam follows no link and uses no odd file inside a team's folders; "+
		"remove it if nothing of yours put it there", e.Path, e.Found, e.Want)
}

// IsOdd reports whether err is, or wraps, an *OddError.
func IsOdd(err error) bool {
	var o *OddError
	return errors.As(err, &o)
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "an odd file"
}

func odd(path string, m fs.FileMode, want string) error {
	return &OddError{Path: path, Found: kind(m), Want: want}
}

// OpenFile opens path as os.OpenFile does, except that a link at path is
// never followed (whether or not flag creates) and anything but a regular
// file is refused with an *OddError. The folder path is in is not checked:
// see Dir.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	// O_NONBLOCK: a named pipe planted in place of a file would otherwise
	// block the open until someone writes to it. It changes nothing for a
	// regular file.
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		// O_NOFOLLOW's refusal is ELOOP (EMLINK on some BSDs), a folder's
		// EISDIR, a pipe's ENXIO: say what is there instead.
		if st, lerr := os.Lstat(path); lerr == nil && !st.Mode().IsRegular() {
			return nil, odd(path, st.Mode(), "a regular file")
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, odd(path, st.Mode(), "a regular file")
	}
	return f, nil
}

// ReadFile is os.ReadFile through OpenFile.
func ReadFile(path string) ([]byte, error) {
	f, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// WriteFile creates path exclusively (it must not exist: nothing planted
// there is followed or reused) and writes data to it.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Dir checks that path is a directory and not a link. A missing path is
// fs.ErrNotExist, as os.Lstat says it.
func Dir(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return odd(path, st.Mode(), "a directory")
	}
	return nil
}

// Below checks each folder from root down to root/rel (rel itself
// included, which must be a folder): none may be a link or anything but a
// directory. root itself is not checked, nor what lies above it. Folders
// that do not exist yet end the check without error: nothing below them
// can be a link either.
func Below(root, rel string) error {
	p := root
	for _, c := range components(rel) {
		p = filepath.Join(p, c)
		if err := Dir(p); errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

// MkdirAll makes root/rel and any missing folder between, none of which
// may be a link (an existing one is an *OddError; a link planted in the
// moment between a mkdir and its check is found by the check). root must
// exist; it may be a link.
func MkdirAll(root, rel string, perm fs.FileMode) error {
	p := root
	for _, c := range components(rel) {
		p = filepath.Join(p, c)
		if err := os.Mkdir(p, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := Dir(p); err != nil {
			return err
		}
	}
	return nil
}

// Mkdir makes the folder path (its parent must be checked by the caller)
// unless a directory is there already; a link or a file there is an
// *OddError.
func Mkdir(path string, perm fs.FileMode) error {
	if err := os.Mkdir(path, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return Dir(path)
}

func components(rel string) []string {
	var out []string
	for _, c := range strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}
