package ptyhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/internal/sys/sock"
)

// The attach socket is a Unix-domain stream socket driven through os.File
// (which the runtime's poller serves as it does net's sockets) rather than
// package net: paneteam is one binary, and importing net into it makes
// every cgo-enabled build (go install's default where a C compiler is
// found) link libc dynamically for net's resolver, which costs about 0.9 ms
// of CPU at every start of every command, most of a `paneteam send`
// (bench/startup). Nothing here needs more than connect, listen and accept.

// sockListener is a listening Unix socket.
type sockListener struct{ f *os.File }

// listenUnix listens on path (which must not exist).
func listenUnix(path string) (*sockListener, error) {
	fd, err := sock.Socket(unix.AF_UNIX)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("bind %s: %w", path, err)
	}
	if err := unix.Listen(fd, 64); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	return &sockListener{f: os.NewFile(uintptr(fd), path)}, nil
}

// Accept waits for a client; after Close it returns an error.
func (l *sockListener) Accept() (*os.File, error) {
	rc, err := l.f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var nfd int
	var aerr error
	err = rc.Read(func(fd uintptr) bool {
		nfd, aerr = sock.Accept(int(fd))
		return aerr != unix.EAGAIN
	})
	if err != nil {
		return nil, err
	}
	if aerr != nil {
		return nil, fmt.Errorf("accept: %w", aerr)
	}
	return os.NewFile(uintptr(nfd), l.f.Name()), nil
}

// Close stops listening; a blocked Accept returns.
func (l *sockListener) Close() error { return l.f.Close() }

// dialUnix connects to the socket at path, retrying while the listener's
// backlog is full, until ctx is done.
func dialUnix(ctx context.Context, path string) (*os.File, error) {
	for {
		fd, err := sock.Socket(unix.AF_UNIX)
		if err != nil {
			return nil, fmt.Errorf("socket: %w", err)
		}
		err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
		if err == nil {
			return os.NewFile(uintptr(fd), path), nil
		}
		unix.Close(fd)
		if !errors.Is(err, unix.EAGAIN) {
			return nil, fmt.Errorf("dial %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("dial %s: %w", path, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}
