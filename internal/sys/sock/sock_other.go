//go:build !linux

package sock

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// macOS and the BSDs have no SOCK_NONBLOCK, SOCK_CLOEXEC or accept4: the
// descriptor is made, then marked, under the fork lock as package os
// does, so no child started meanwhile inherits it.

// Socket opens a non-blocking stream socket of domain (unix.AF_UNIX,
// unix.AF_INET) closed on exec.
func Socket(domain int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := unix.Socket(domain, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	return fd, prepare(fd)
}

// Accept takes a waiting client of the listening socket fd as a
// non-blocking descriptor closed on exec.
func Accept(fd int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	nfd, _, err := unix.Accept(fd)
	if err != nil {
		return -1, err
	}
	return nfd, prepare(nfd)
}

func prepare(fd int) error {
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return err
	}
	return nil
}
