package ptyhost

import (
	"fmt"
	"os"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// DefaultMaxLog bounds one log file; with the one rotated file kept beside
// it, a teammate's output never takes more than twice this.
const DefaultMaxLog = 1 << 20

// rotatingLog appends to Paths.Log and, when it would grow past max, moves
// it to Paths.Prev (replacing the older one) and starts afresh. Only the
// host writes it, from one goroutine.
type rotatingLog struct {
	paths Paths
	max   int64
	f     *os.File
	size  int64
}

func openLog(p Paths, max int64) (*rotatingLog, error) {
	if max <= 0 {
		max = DefaultMaxLog
	}
	if err := p.ensureDir(); err != nil {
		return nil, fmt.Errorf("teammate log folder: %w", err)
	}
	l := &rotatingLog{paths: p, max: max}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *rotatingLog) open() error {
	f, err := safefs.OpenFile(l.paths.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, lockfile.FilePerm)
	if err != nil {
		return fmt.Errorf("teammate log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("teammate log: %w", err)
	}
	l.f, l.size = f, fi.Size()
	return nil
}

func (l *rotatingLog) Write(p []byte) (int, error) {
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		if err := l.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

func (l *rotatingLog) rotate() error {
	l.f.Close()
	if err := os.Rename(l.paths.Log, l.paths.Prev); err != nil {
		return fmt.Errorf("rotate teammate log: %w", err)
	}
	return l.open()
}

func (l *rotatingLog) Close() error { return l.f.Close() }
