// Package sock opens sockets with the system calls themselves, not package
// net: importing net into paneteam makes every cgo-enabled build link libc
// dynamically for its resolver, a cost paid at every start of every
// command (bench/startup). The descriptors are non-blocking, for the
// runtime's poller (os.NewFile), and closed on exec.
package sock

import "golang.org/x/sys/unix"

// socketFlags make a socket non-blocking and closed on exec in the call
// that makes it.
const socketFlags = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC

// Socket opens a non-blocking stream socket of domain (unix.AF_UNIX,
// unix.AF_INET) closed on exec.
func Socket(domain int) (int, error) {
	return unix.Socket(domain, unix.SOCK_STREAM|socketFlags, 0)
}

// Accept takes a waiting client of the listening socket fd as a
// non-blocking descriptor closed on exec.
func Accept(fd int) (int, error) {
	nfd, _, err := unix.Accept4(fd, socketFlags)
	return nfd, err
}
