package worktree

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// identity is a folder's device and inode: what a name leads to now
// is compared with what was checked.
type identity struct{ dev, ino uint64 }

func identityOf(fd int) (identity, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return identity{}, err
	}
	return identity{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil //nolint:unconvert // int32 on some systems
}

// removeAllAt removes name of the folder dirfd and everything below it,
// every entry reached through the folder before it and none through a
// link: a link inside is removed as a link, never followed, so nothing
// outside the folder can be reached.
func removeAllAt(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	fd, oerr := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if oerr != nil {
		return fmt.Errorf("remove %s: %w", name, err) // not a folder: the unlink's own error says why
	}
	dir := os.NewFile(uintptr(fd), name)
	defer dir.Close()
	// All the names first, then the removals: a folder read while its
	// entries go may skip some.
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	for _, n := range names {
		if err := removeAllAt(fd, n); err != nil {
			return fmt.Errorf("%s/%w", name, err)
		}
	}
	if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	return nil
}
