//go:build !linux

package tmux

import "syscall"

// macOS and the BSDs have no SOCK_CLOEXEC or pipe2: the descriptors are
// made and marked close-on-exec under the fork lock, as package os does,
// so no child started meanwhile inherits them.

// unixSocket opens a Unix stream socket closed on exec.
func unixSocket() (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	return fd, err
}

// cloexecPipe opens a pipe whose ends are closed on exec.
func cloexecPipe(p []int) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p); err != nil {
		return err
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	return nil
}
