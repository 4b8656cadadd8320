package ptyhost

import (
	"fmt"

	"golang.org/x/sys/unix"
)

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

// TermSize returns the size of the terminal on fd.
func TermSize(fd int) (Size, error) {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return Size{}, fmt.Errorf("terminal size: %w", err)
	}
	return Size{Rows: int(ws.Row), Cols: int(ws.Col)}, nil
}
