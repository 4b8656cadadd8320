// Package tty is the person's own terminal as a program that takes it
// over needs it: raw mode, put back as it was on every way out; its
// window's size; and following that size as the person resizes the
// window (SIGWINCH). It is the one place paneteam does either: the
// teammate wrapper and 'paneteam attach' both take the terminal through
// Take, so neither writes its own raw mode or resize loop.
package tty

import (
	"fmt"
	"os"
	"os/signal"
	"sync"

	"golang.org/x/sys/unix"
)

// Size is a terminal's size in character cells.
type Size struct{ Rows, Cols int }

// MakeRaw puts the terminal on fd into raw mode (as cfmakeraw(3) does:
// no echo, no line editing, no signals from keys, bytes passed as typed)
// and returns the function that restores it as it was. Callers defer it,
// so that the terminal is restored on every way out.
func MakeRaw(fd int) (restore func() error, err error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, fmt.Errorf("read terminal mode: %w", err)
	}
	raw := *old
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Oflag &^= unix.OPOST
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
		return nil, fmt.Errorf("set raw terminal mode: %w", err)
	}
	return func() error { return unix.IoctlSetTermios(fd, ioctlSetTermios, old) }, nil
}

// SizeOf returns the size of the terminal on fd.
func SizeOf(fd int) (Size, error) {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return Size{}, fmt.Errorf("terminal size: %w", err)
	}
	return Size{Rows: int(ws.Row), Cols: int(ws.Col)}, nil
}

// Follow calls resized with the size of the terminal on fd each time its
// window changes from the last size seen, starting from known (what the
// caller already read, or gave the program it drives), until stop is
// called. The size is read once as soon as the signal is watched, so a
// resize between the caller's read and this call is not lost. resized
// runs on one goroutine, one call at a time; stop waits for a call in
// progress, and none comes after it.
func Follow(fd int, known Size, resized func(Size)) (stop func()) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, unix.SIGWINCH)
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		last := known
		check := func() {
			// A size of zero is a terminal that does not know its
			// size (a serial line): nothing to pass on.
			if s, err := SizeOf(fd); err == nil && s != last && s.Rows > 0 && s.Cols > 0 {
				last = s
				resized(s)
			}
		}
		check()
		for {
			select {
			case <-done:
				return
			case <-winch:
				check()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(winch)
			close(done)
			<-ended
		})
	}
}

// Take puts the terminal on fd into raw mode and follows its size (see
// Follow); release stops following, then puts the mode back. Defer
// release: a return, a panic and the signals paneteam turns into a
// cancelled context (SIGINT, SIGTERM, SIGHUP: cmd/paneteam) all reach
// it, so the person's terminal is never left raw.
func Take(fd int, known Size, resized func(Size)) (release func(), err error) {
	restore, err := MakeRaw(fd)
	if err != nil {
		return nil, err
	}
	stop := Follow(fd, known, resized)
	var once sync.Once
	return func() {
		once.Do(func() {
			stop()
			restore() //nolint:errcheck // nothing better to do than leave it
		})
	}, nil
}
