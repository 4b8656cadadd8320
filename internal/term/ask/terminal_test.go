package ask

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// ttyPair is a real pseudo-terminal: the test types into master, the
// Terminal reads tty.
func ttyPair(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("SKIPPED: no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { master.Close(); tty.Close() })
	// Drain what the Terminal draws, so its writes never block.
	go io.Copy(io.Discard, master)
	return master, tty
}

func lineFrom(t *testing.T, tty *os.File, prompt string) (chan string, chan error) {
	got, errs := make(chan string, 1), make(chan error, 1)
	go func() {
		term, err := Open(tty, tty)
		if err != nil {
			errs <- err
			return
		}
		s, err := term.Line(prompt)
		term.Close()
		if err != nil {
			errs <- err
			return
		}
		got <- s
	}()
	return got, errs
}

func wait[T any](t *testing.T, c chan T, errs chan error) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case err := <-errs:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("no line after 10s")
	}
	panic("unreachable")
}

// A line far longer than a terminal's canonical-mode buffer (4095 bytes
// on Linux), typed in chunks as a terminal delivers it, arrives whole.
func TestTerminalLongLine(t *testing.T) {
	master, tty := ttyPair(t)
	text := strings.Repeat("x#{pane_id}$(touch y)'\"`é日", 400) // ~12 KB
	got, errs := lineFrom(t, tty, "message: ")
	waitRaw(t, tty)
	b := []byte(text)
	for len(b) > 0 {
		n := min(len(b), 777) // splits characters across writes too
		if _, err := master.Write(b[:n]); err != nil {
			t.Fatal(err)
		}
		b = b[n:]
	}
	master.Write([]byte("\r"))
	if s := wait(t, got, errs); s != text {
		t.Errorf("got %d bytes, want %d; equal prefix %d", len(s), len(text), commonPrefix(s, text))
	}
}

// Canceling returns ErrCanceled; closing restores the terminal's mode.
func TestTerminalCancelAndRestore(t *testing.T) {
	master, tty := ttyPair(t)
	before, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	got, errs := lineFrom(t, tty, "to: ")
	waitRaw(t, tty)
	master.Write([]byte("abc\x1b"))
	select {
	case s := <-got:
		t.Fatalf("Esc gave line %q", s)
	case err := <-errs:
		if !errors.Is(err, ErrCanceled) {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Esc did not cancel")
	}
	after, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	if after.Lflag != before.Lflag || after.Iflag != before.Iflag {
		t.Errorf("terminal not restored: lflag %#x -> %#x, iflag %#x -> %#x", before.Lflag, after.Lflag, before.Iflag, after.Iflag)
	}
}

// Two answers typed at once: the second is kept for the second question.
func TestTerminalTypeAhead(t *testing.T) {
	master, tty := ttyPair(t)
	res := make(chan []string, 1)
	errs := make(chan error, 1)
	go func() {
		term, err := Open(tty, tty)
		if err != nil {
			errs <- err
			return
		}
		var out []string
		for _, p := range []string{"to: ", "message: "} {
			s, err := term.Line(p)
			if err != nil {
				term.Close()
				errs <- err
				return
			}
			out = append(out, s)
		}
		term.Close()
		res <- out
	}()
	waitRaw(t, tty)
	master.Write([]byte("alice\rhello there\r"))
	if got := wait(t, res, errs); strings.Join(got, "|") != "alice|hello there" {
		t.Errorf("got %q", got)
	}
}

func TestOpenRefusesANonTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := Open(r, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "not a terminal") {
		t.Errorf("Open on a pipe: %v", err)
	}
}

// waitRaw waits until the Terminal has put tty in raw mode: bytes typed
// before that go through the canonical line discipline, which keeps only
// the first 4095 bytes of a line on Linux (TestCanonicalModeCutsLongLines).
func waitRaw(t *testing.T, tty *os.File) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, "terminal never went raw", func() bool {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
		if err != nil {
			t.Fatal(err)
		}
		return tio.Lflag&unix.ICANON == 0
	})
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestCanonicalModeCutsLongLines measures why Line reads in raw mode: a
// terminal's own line editing (canonical mode, what a shell's read or
// command-prompt-like tools get) keeps at most 4095 bytes of a line on
// Linux and silently drops the rest.
func TestCanonicalModeCutsLongLines(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SKIPPED: the 4095-byte limit is Linux's n_tty")
	}
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("SKIPPED: no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	go io.Copy(io.Discard, master) // the echo
	go master.Write([]byte(strings.Repeat("a", 5000) + "\r"))
	buf := make([]byte, 8192)
	n, err := tty.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != 4096 { // 4095 bytes and the newline
		t.Errorf("canonical read returned %d bytes; the note on Editor about 4095 needs updating", n)
	}
}
