package tmux

import "syscall"

// unixSocket opens a Unix stream socket closed on exec, in one call.
func unixSocket() (int, error) {
	return syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}

// cloexecPipe opens a pipe whose ends are closed on exec, in one call.
func cloexecPipe(p []int) error { return syscall.Pipe2(p, syscall.O_CLOEXEC) }
