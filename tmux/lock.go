package tmux

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/internal/sys/flockwait"
)

// LockSuffix ends the name of paneteam's pane lock beside a tmux socket.
const LockSuffix = ".paneteam-lock"

// Lock serialises pane creation on this server across processes: between
// reading the panes, splitting and re-laying out, no other paneteam may
// split the same window, or two spawns would pick the same target and
// layouts would interleave. The lock is a flock on a file beside the
// socket (socket folders are private to their user), created 0600.
// It returns the release function; waiting ends with ctx.
//
// The file may be deleted (RemoveLock, once its server is gone):
// flockwait.LockInPlace locks the file still in place, so two holders
// never hold one lock.
func (s Server) Lock(ctx context.Context) (unlock func(), err error) {
	sock, err := s.SocketPath()
	if err != nil {
		return nil, err
	}
	// The folder of a -L socket may not exist before the server starts;
	// tmux accepts it when it is the user's and mode 0700.
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", s, err)
	}
	path := sock + LockSuffix
	fl, err := flockwait.LockInPlace(ctx, path, time.Time{})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("another paneteam held it too long: %w", err)
		}
		return nil, fmt.Errorf("wait for the pane lock %s: %w", path, err)
	}
	return func() { fl.Unlock() }, nil
}

// RemoveLock deletes the pane lock file of a server that has been stopped,
// so a private server leaves nothing behind. It deletes the file only
// while holding the lock itself (safe: see Lock), and leaves it when
// another paneteam holds it (a spawn in progress).
func (s Server) RemoveLock() error {
	sock, err := s.SocketPath()
	if err != nil {
		return err
	}
	_, err = removeLockIf(sock+LockSuffix, func() bool { return true }, false)
	return err
}

// removeLockIf deletes the pane lock at path when nobody holds it and
// gone, asked while holding it, says so. It reports whether it did (with
// dryRun: would).
func removeLockIf(path string, gone func() bool, dryRun bool) (bool, error) {
	ok, err := flockwait.RemoveIfFree(path, gone, dryRun)
	if err != nil {
		return false, fmt.Errorf("remove pane lock: %w", err)
	}
	return ok, nil
}

// StaleLocks lists (and unless dryRun removes) paneteam's pane locks in
// the socket folder dir whose tmux server is provably gone: its socket
// is missing, or is a socket nobody listens on (connect refused). Servers
// killed from outside paneteam leave their locks behind this way. A lock
// someone holds, a file that is not the user's own, and a lock beside a
// server that may be running are left alone.
func StaleLocks(dir string, dryRun bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read tmux socket folder %s: %w", dir, err)
	}
	var out []string
	var errs []error
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), LockSuffix) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !ownFile(path) {
			continue
		}
		sock := strings.TrimSuffix(path, LockSuffix)
		if !serverGone(sock) {
			continue
		}
		removed, err := removeLockIf(path, func() bool { return serverGone(sock) }, dryRun)
		if err != nil {
			errs = append(errs, err)
		}
		if removed {
			out = append(out, path)
		}
	}
	return out, errors.Join(errs...)
}

// serverGone reports whether no tmux server can be listening at sock:
// nothing is there, or it is a socket whose connect is refused (its
// server died; tmux 3.3 leaves the file). Anything else (a live server,
// a path that is not a socket, an error) may be someone's: not gone.
func serverGone(sock string) bool {
	fi, err := os.Lstat(sock)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil || fi.Mode()&fs.ModeSocket == 0 {
		return false
	}
	return errors.Is(dialUnix(sock), syscall.ECONNREFUSED)
}

// dialUnix connects to the Unix socket at path and hangs up at once. It
// uses the system calls directly rather than package net, which would make
// every cgo build of paneteam link libc dynamically, a cost paid at every
// process start (issue 15).
func dialUnix(path string) error {
	fd, err := unixSocket()
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EINTR {
			return err
		}
	}
}

func ownFile(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
