// Package ask asks a person for text on a terminal and returns exactly
// what was typed. paneteam's tmux key bindings open a popup that runs
// paneteam, and paneteam asks there: the text never passes through a
// shell command line or a tmux command or format, where quotes, $, `,
// ';', #(...) or %1 would be interpreted (tmux(1) command-prompt pastes its
// answer into a command template; run-shell expands formats, then hands
// the line to sh -c).
package ask

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/internal/term/visible"
)

// ErrCanceled is returned when the person cancels (Esc, Ctrl-C, Ctrl-D).
var ErrCanceled = errors.New("canceled")

// escWait is how long a lone ESC waits for the rest of an escape
// sequence before it counts as the Esc key. tmux and terminals send a
// sequence in one write, so a short wait suffices.
const escWait = 50 * time.Millisecond

// Terminal asks questions on a terminal: In is its input (a tty), Out
// where prompts are drawn.
type Terminal struct {
	In  *os.File
	Out io.Writer

	pending []byte // read but not yet used (typed ahead)
	saved   *unix.Termios
}

// Open checks that in is a terminal and puts it in raw mode (no echo, no
// line editing, no signals from Ctrl-C), the mode Line and Key read in.
// Close restores it.
func Open(in *os.File, out io.Writer) (*Terminal, error) {
	t := &Terminal{In: in, Out: out}
	if err := t.Raw(); err != nil {
		return nil, err
	}
	return t, nil
}

// Raw puts the terminal in raw mode (again, after Restore).
func (t *Terminal) Raw() error {
	if t.saved != nil {
		return nil
	}
	fd := int(t.In.Fd())
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return fmt.Errorf("%s is not a terminal: paneteam asks on a terminal (run it in one, or in a tmux popup: display-popup -E): %w", t.In.Name(), err)
	}
	raw := *old
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
		return fmt.Errorf("set %s to raw mode: %w", t.In.Name(), err)
	}
	t.saved = old
	return nil
}

// Restore gives the terminal back its mode from before Raw.
func (t *Terminal) Restore() error {
	if t.saved == nil {
		return nil
	}
	err := unix.IoctlSetTermios(int(t.In.Fd()), ioctlSetTermios, t.saved)
	t.saved = nil
	return err
}

// Close restores the terminal.
func (t *Terminal) Close() error { return t.Restore() }

// Line shows prompt and returns the line typed after it, exactly as
// typed (see Editor), or ErrCanceled.
func (t *Terminal) Line(prompt string) (string, error) {
	if err := t.Raw(); err != nil {
		return "", err
	}
	fmt.Fprint(t.Out, bracketedPasteOn)
	defer fmt.Fprint(t.Out, bracketedPasteOff)
	var ed Editor
	draw := func() { fmt.Fprint(t.Out, "\r"+prompt+tail(ed.Text(), t.cols()-runesWidth(prompt)-1)+clearToEOL) }
	draw()
	for {
		chunk, err := t.read(ed.PendingEsc())
		if err != nil {
			return "", err
		}
		out := Editing
		if chunk == nil { // a lone ESC and nothing after it
			out = ed.EscTimeout()
		} else {
			var used int
			out, used = ed.Feed(chunk)
			t.pending = append(t.pending[:0], chunk[used:]...)
		}
		draw()
		switch out {
		case Done:
			fmt.Fprint(t.Out, "\r\n")
			return ed.Text(), nil
		case Canceled:
			fmt.Fprint(t.Out, "\r\n")
			return "", ErrCanceled
		}
	}
}

// Key shows prompt and waits for any key.
func (t *Terminal) Key(prompt string) error {
	if err := t.Raw(); err != nil {
		return err
	}
	fmt.Fprint(t.Out, prompt)
	t.pending = nil // typed before the question: not an answer to it
	_, err := t.read(false)
	fmt.Fprint(t.Out, "\r\n")
	return err
}

// read returns what was typed ahead, else waits for input. With escOnly
// it waits only escWait and returns nil when nothing came.
func (t *Terminal) read(escOnly bool) ([]byte, error) {
	if len(t.pending) > 0 {
		p := t.pending
		t.pending = nil
		return p, nil
	}
	fd := int(t.In.Fd())
	if escOnly {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(escWait/time.Millisecond))
		if err != nil && !errors.Is(err, unix.EINTR) {
			return nil, fmt.Errorf("wait for input: %w", err)
		}
		if n == 0 {
			return nil, nil
		}
	}
	buf := make([]byte, 4096)
	for {
		n, err := unix.Read(fd, buf)
		switch {
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return nil, fmt.Errorf("read from the terminal: %w", err)
		case n == 0:
			return nil, fmt.Errorf("read from the terminal: %w", io.EOF)
		}
		return buf[:n], nil
	}
}

// cols is the terminal's width (80 when it cannot be read).
func (t *Terminal) cols() int {
	ws, err := unix.IoctlGetWinsize(int(t.In.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 80
	}
	return int(ws.Col)
}

func runesWidth(s string) int {
	w := 0
	inEsc := false
	for _, r := range s {
		switch {
		case r == keyEsc:
			inEsc = true
		case inEsc:
			inEsc = !(r >= 0x40 && r <= 0x7e && r != '[')
		default:
			w += width(r)
		}
	}
	return w
}

const (
	clearToEOL        = "\x1b[K"
	bracketedPasteOn  = "\x1b[?2004h"
	bracketedPasteOff = "\x1b[?2004l"
)

// LineUntil asks with Line until check accepts the answer, showing
// check's error (made Visible) before asking again.
func (t *Terminal) LineUntil(prompt string, check func(string) error) (string, error) {
	for {
		s, err := t.Line(prompt)
		if err != nil {
			return "", err
		}
		if err := check(s); err != nil {
			fmt.Fprintf(t.Out, "%s\r\n", visible.Line(err.Error()))
			continue
		}
		return s, nil
	}
}
