package tty_test

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/paneteam/paneteam/internal/term/tty"
)

// openPty is a real terminal pair at 24x80: the test resizes the master
// as a terminal emulator would when the person drags its window.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { master.Close(); slave.Close() })
	if err := pty.Setsize(master, &pty.Winsize{Rows: 24, Cols: 80}); err != nil {
		t.Fatal(err)
	}
	return master, slave
}

func cooked(t *testing.T, f *os.File) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ICANON != 0 && tio.Lflag&unix.ECHO != 0
}

// The window is resized, the kernel signals SIGWINCH (sent here by hand:
// the test process is not in the terminal's session), and the new size is
// passed on; release puts the terminal back and nothing follows it.
func TestTakeFollowsResizesAndRestores(t *testing.T) {
	master, slave := openPty(t)
	sizes := make(chan tty.Size, 8)
	release, err := tty.Take(int(slave.Fd()), tty.Size{Rows: 24, Cols: 80}, func(s tty.Size) { sizes <- s })
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if cooked(t, slave) {
		t.Fatal("Take left the terminal in its cooked mode")
	}
	select {
	case s := <-sizes:
		t.Fatalf("a size the caller already knew was passed on: %v", s)
	case <-time.After(100 * time.Millisecond):
	}
	pty.Setsize(master, &pty.Winsize{Rows: 41, Cols: 133})
	syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	select {
	case s := <-sizes:
		if s != (tty.Size{Rows: 41, Cols: 133}) {
			t.Fatalf("resized to %v, want 41x133", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a resize of the window was not passed on")
	}
	release()
	if !cooked(t, slave) {
		t.Fatal("release left the terminal raw")
	}
	pty.Setsize(master, &pty.Winsize{Rows: 50, Cols: 150})
	syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	select {
	case s := <-sizes:
		t.Fatalf("a resize after release was passed on: %v", s)
	case <-time.After(200 * time.Millisecond):
	}
}

// A resize between the caller's read of the size and Follow is not lost.
func TestFollowCatchesAResizeBeforeIt(t *testing.T) {
	master, slave := openPty(t)
	known, err := tty.SizeOf(int(slave.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	pty.Setsize(master, &pty.Winsize{Rows: 30, Cols: 90})
	sizes := make(chan tty.Size, 8)
	stop := tty.Follow(int(slave.Fd()), known, func(s tty.Size) { sizes <- s })
	defer stop()
	select {
	case s := <-sizes:
		if s != (tty.Size{Rows: 30, Cols: 90}) {
			t.Fatalf("resized to %v, want 30x90", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the resize before Follow was lost")
	}
}
