package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The functions below walk root/rel one component at a time, each folder
// opened relative to the one before it (openat with O_NOFOLLOW and
// O_DIRECTORY, mkdirat), so a link planted at any step, even between a
// check and a use, is refused rather than followed: Below and MkdirAll
// check a path and then use it by name, which a link swapped in between
// would redirect. root itself is opened by name and may be a link (/tmp
// on macOS); rel must be local (filepath.IsLocal).

// walk opens the folder root/dir, making the missing folders with perm
// when mkdir is set. The caller closes it.
func walk(root, dir string, mkdir bool, perm fs.FileMode) (*os.File, error) {
	fd, err := walkFd(root, dir, mkdir, perm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), root+string(filepath.Separator)+dir), nil
}

// OpenDirBelow opens the folder root/rel as walk does, with no link
// followed at any step below root and nothing made, and returns its
// descriptor, for a caller that works relative to it (unlinkat, renameat).
// The caller closes it.
func OpenDirBelow(root, rel string) (int, error) { return walkFd(root, rel, false, 0) }

// Kind names what a file mode is ("a symbolic link", "a named pipe", ...)
// for a message that says what was found where something else belongs.
func Kind(m fs.FileMode) string { return kind(m) }

func walkFd(root, dir string, mkdir bool, perm fs.FileMode) (int, error) {
	if dir != "" && !filepath.IsLocal(dir) {
		return -1, fmt.Errorf("%s is not a path inside %s", dir, root)
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	p := root
	for _, c := range components(dir) {
		p = filepath.Join(p, c)
		next, err := openDirAt(fd, c, p)
		if errors.Is(err, fs.ErrNotExist) && mkdir {
			if err = unix.Mkdirat(fd, c, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
				unix.Close(fd)
				return -1, &fs.PathError{Op: "mkdir", Path: p, Err: err}
			}
			next, err = openDirAt(fd, c, p)
		}
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// openDirAt opens folder name of dirfd (path names it in errors) without
// following a link: a link, or anything but a directory, is an *OddError.
func openDirAt(dirfd int, name, path string) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		return fd, nil
	}
	if m, ok := modeAt(dirfd, name); ok && !m.IsDir() {
		return -1, odd(path, m, "a directory")
	}
	if errors.Is(err, unix.ENOENT) {
		return -1, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	return -1, &fs.PathError{Op: "open", Path: path, Err: err}
}

// modeAt is what name of dirfd is, not following a link.
func modeAt(dirfd int, name string) (fs.FileMode, bool) {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return 0, false
	}
	m := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR, unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFREG:
	default:
		m |= fs.ModeIrregular
	}
	return m, true
}

// OpenBelow opens root/rel as OpenFile does, with no link followed at
// any step below root: a folder on the way (made with dirPerm when flag
// has O_CREATE) or the file itself being a link or an odd file is an
// *OddError naming it.
func OpenBelow(root, rel string, flag int, perm, dirPerm fs.FileMode) (*os.File, error) {
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s is not a path inside %s", rel, root)
	}
	dir, err := walk(root, filepath.Dir(rel), flag&os.O_CREATE != 0, dirPerm)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	name, path := filepath.Base(rel), filepath.Join(root, rel)
	// O_NONBLOCK: see OpenFile.
	fd, err := unix.Openat(int(dir.Fd()), name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		if m, ok := modeAt(int(dir.Fd()), name); ok && !m.IsRegular() {
			return nil, odd(path, m, "a regular file")
		}
		if errors.Is(err, unix.ENOENT) {
			err = fs.ErrNotExist
		} else if errors.Is(err, unix.EEXIST) {
			err = fs.ErrExist
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, odd(path, st.Mode(), "a regular file")
	}
	// The file's own non-blocking mode would make a read of a regular
	// file no different, but a writer handed an *os.File expects it off.
	if err := unix.SetNonblock(fd, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// LstatBelow is what root/rel is, not following a link at it nor at any
// folder on the way (an *OddError names a link on the way).
func LstatBelow(root, rel string) (fs.FileMode, error) {
	if !filepath.IsLocal(rel) {
		return 0, fmt.Errorf("%s is not a path inside %s", rel, root)
	}
	dir, err := walk(root, filepath.Dir(rel), false, 0)
	if err != nil {
		return 0, err
	}
	defer dir.Close()
	m, ok := modeAt(int(dir.Fd()), filepath.Base(rel))
	if !ok {
		return 0, &fs.PathError{Op: "lstat", Path: filepath.Join(root, rel), Err: fs.ErrNotExist}
	}
	return m, nil
}

// ReadlinkBelow is the target of the link root/rel, no link followed on
// the way.
func ReadlinkBelow(root, rel string) (string, error) {
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is not a path inside %s", rel, root)
	}
	dir, err := walk(root, filepath.Dir(rel), false, 0)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(int(dir.Fd()), filepath.Base(rel), buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: filepath.Join(root, rel), Err: err}
	}
	return string(buf[:n]), nil
}

// SymlinkBelow makes the link root/rel to target (never replacing what
// is there), its missing folders made with dirPerm, no link followed on
// the way.
func SymlinkBelow(target, root, rel string, dirPerm fs.FileMode) error {
	if !filepath.IsLocal(rel) {
		return fmt.Errorf("%s is not a path inside %s", rel, root)
	}
	dir, err := walk(root, filepath.Dir(rel), true, dirPerm)
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := unix.Symlinkat(target, int(dir.Fd()), filepath.Base(rel)); err != nil {
		if errors.Is(err, unix.EEXIST) {
			err = fs.ErrExist
		}
		return &fs.PathError{Op: "symlink", Path: filepath.Join(root, rel), Err: err}
	}
	return nil
}
