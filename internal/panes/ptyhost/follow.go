package ptyhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// followPoll is how often a followed log is checked for more output.
const followPoll = 100 * time.Millisecond

// CopyLog writes the teammate's whole kept output (the rotated part, then
// the current one) to w and returns how much of the current log it wrote.
func CopyLog(p Paths, w io.Writer) (int64, error) {
	if f, err := openLogFile(p.Prev); err == nil {
		_, err = io.Copy(w, f)
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("print teammate log: %w", err)
		}
	}
	f, err := openLogFile(p.Log)
	if err != nil {
		return 0, fmt.Errorf("teammate log: %w", err)
	}
	defer f.Close()
	n, err := io.Copy(w, f)
	if err != nil {
		return n, fmt.Errorf("print teammate log: %w", err)
	}
	return n, nil
}

// FollowLog prints the kept output, then new output as it comes, until the
// host has ended and everything it wrote is printed, or ctx is done. A
// rotation is noticed by the log's identity changing and followed from the
// new file's start.
func FollowLog(ctx context.Context, p Paths, w io.Writer) error {
	off, err := CopyLog(p, w)
	if err != nil {
		return err
	}
	f, err := openLogFile(p.Log)
	if err != nil {
		return fmt.Errorf("teammate log: %w", err)
	}
	defer func() { f.Close() }()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("teammate log: %w", err)
	}
	for {
		// Read whether the host is gone before draining, so the last
		// output written before it ended is never missed.
		st, stErr := ReadState(p.State)
		ended := stErr == nil && !st.HostAlive()
		if _, err := io.Copy(w, f); err != nil {
			return fmt.Errorf("print teammate log: %w", err)
		}
		if rotated(f, p.Log) {
			nf, err := openLogFile(p.Log)
			if err == nil {
				f.Close()
				f = nf
				continue
			}
		}
		if ended {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return nil
			}
			return ctx.Err()
		case <-time.After(followPoll):
		}
	}
}

// openLogFile opens a log for reading, not through a link planted in its
// place: attach would print whatever file it leads to.
func openLogFile(path string) (*os.File, error) {
	return safefs.OpenFile(path, os.O_RDONLY, 0)
}

// rotated reports whether path now names another file than f.
func rotated(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && !os.SameFile(a, b)
}
