// Package lockfile takes the same lock Claude Code takes on its team files,
// so paneteam and a running Claude Code exclude each other, and writes those
// files atomically.
//
// Claude Code locks with the npm package proper-lockfile 4.x: the lock is a
// directory made with mkdir at "<file>.lock" (mkdir is the atomic step) and
// released with rmdir. Its holder refreshes the directory's mtime every 5 s;
// a lock whose mtime is more than 10 s old is stale and may be taken over.
// This package does exactly that, and never leaves a regular file at a
// *.lock path: Claude Code's mkdir would then fail for good.
//
// In front of the directory lock, paneteam processes queue on a kernel lock
// (flock) of their own at ".<file>.flock", so they wait without polling each
// other. The flock file also records which lock directory a paneteam holder
// made; a later paneteam process that gets the flock and finds that very
// directory still there knows its holder died and takes it over at once,
// instead of waiting out the 10 s stale window.
package lockfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/sys/flockwait"
	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// proper-lockfile's numbers, as Claude Code uses them.
const (
	DefaultStale   = 10 * time.Second // lock older than this is stale
	DefaultTimeout = 15 * time.Second // how long paneteam waits for a live lock
	firstBackoff   = 5 * time.Millisecond
	maxBackoff     = 100 * time.Millisecond
)

// Options tunes a lock. The zero value is the interoperable default.
type Options struct {
	// Timeout bounds the wait for a live lock (DefaultTimeout when zero).
	// A context deadline that comes sooner wins.
	Timeout time.Duration
	// Stale is the age after which a lock directory is abandoned
	// (DefaultStale when zero). Only tests should change it.
	Stale time.Duration
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Stale <= 0 {
		o.Stale = DefaultStale
	}
	return o
}

// ErrCompromised means the lock directory changed under its holder: another
// process judged it stale and took it. The holder must not write.
var ErrCompromised = errors.New("lock was taken over by another process")

// TimeoutError reports a live lock that was not released in time.
type TimeoutError struct {
	Path   string // the lock directory
	Waited time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("timed out after %s waiting for lock %s: another process holds it "+
		"(a lock is taken over only when stale, %s after its holder's last refresh)",
		e.Waited.Round(time.Millisecond), e.Path, DefaultStale)
}

// LockPath is the directory Claude Code's proper-lockfile uses for target.
func LockPath(target string) string { return target + ".lock" }

// QueuePath is paneteam's own flock file for target.
func QueuePath(target string) string {
	dir, base := filepath.Split(target)
	return filepath.Join(dir, "."+base+".flock")
}

// Lock takes the lock on target, which must exist (like proper-lockfile,
// which resolves its real path). It returns the function that releases it.
func Lock(ctx context.Context, target string, opts Options) (unlock func() error, err error) {
	h, err := acquire(ctx, target, opts, nil)
	if err != nil {
		return nil, err
	}
	return h.release, nil
}

type holder struct {
	dir    string // the lock directory
	queue  *flock.Flock
	record string // the flock file, which records dir's mtime
	stale  time.Duration
	mu     sync.Mutex
	mtime  time.Time
	lost   bool
	done   bool        // released: the refresh timer must not touch the directory
	timer  *time.Timer // refreshes the lock while it is held
}

// realPath is the file proper-lockfile locks for target: it resolves its
// real path, and puts the lock directory beside it. Only a symlink as the
// last element would move that directory; a symlinked folder above it
// names the same directory entry either way. A symlink as the last element
// is refused instead of followed: in a folder others write, it would make
// paneteam create its lock and its queue file beside whatever it points to
// (docs/PROTOCOL.md §4). So the common case costs one lstat, not one per
// path element.
func realPath(target string) (string, error) {
	st, err := os.Lstat(target)
	if err != nil {
		return "", err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return "", &safefs.OddError{Path: target, Found: "a symbolic link", Want: "a regular file"}
	}
	if !strings.Contains(target, "..") {
		return filepath.Clean(target), nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(target))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(target)), nil
}

// newQueue is the queue lock of real. Its file is opened without
// following a link: one planted there would have the record written over
// the start of whatever it points to.
func newQueue(real string) (*flock.Flock, error) {
	p := QueuePath(real)
	if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
		return nil, &safefs.OddError{Path: p, Found: kindOf(st.Mode()), Want: "a regular file"}
	}
	return flock.New(p, flock.SetPermissions(FilePerm),
		flock.SetFlag(os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK)), nil
}

func kindOf(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return "a symbolic link"
	}
	if m.IsDir() {
		return "a directory"
	}
	return "a file of another kind (a pipe, a socket or a device)"
}

// errSettled is acquire's answer when settled said, once this process held
// the queue lock, that there is nothing left to do.
var errSettled = errors.New("settled while waiting")

// acquire takes the lock on target. settled, when set, is asked once this
// process holds paneteam's queue lock (no other paneteam process is then
// writing target) and before the lock directory is made: true means the
// caller's work was done meanwhile, and acquire returns errSettled.
func acquire(ctx context.Context, target string, opts Options, settled func() bool) (*holder, error) {
	opts = opts.withDefaults()
	real, err := realPath(target)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", target, err)
	}
	// A deadline, not context.WithTimeout: deriving from ctx would ask
	// it at once, and a short wait need not (flockwait.Grace).
	start := time.Now()
	deadline := start.Add(opts.Timeout)
	dir := LockPath(real)
	timeout := func(err error) error {
		if errors.Is(err, context.DeadlineExceeded) {
			return &TimeoutError{Path: dir, Waited: time.Since(start)}
		}
		return fmt.Errorf("lock %s: %w", dir, err)
	}

	q, err := newQueue(real)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", target, err)
	}
	if err := flockwait.LockUntil(ctx, q, deadline); err != nil {
		return nil, timeout(err)
	}
	if settled != nil && settled() {
		q.Unlock()
		return nil, errSettled
	}
	h := &holder{dir: dir, queue: q, record: QueuePath(real), stale: opts.Stale}
	if err := h.mkdirLoop(ctx, deadline, true); err != nil {
		q.Unlock()
		return nil, timeout(err)
	}
	h.startRefresh(opts.Stale / 2)
	return h, nil
}

// tryAcquire takes the lock on target only if it is free now: no other
// paneteam process queues for it and no lock directory is there (or the
// one there is stale or a dead paneteam holder's). Otherwise it returns a
// nil holder and no error, having changed nothing.
func tryAcquire(target string, opts Options) (*holder, error) {
	opts = opts.withDefaults()
	real, err := realPath(target)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", target, err)
	}
	dir := LockPath(real)
	q, err := newQueue(real)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", target, err)
	}
	ok, err := q.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if !ok {
		return nil, nil
	}
	h := &holder{dir: dir, queue: q, record: QueuePath(real), stale: opts.Stale}
	if err := h.mkdirLoop(context.Background(), time.Time{}, false); err != nil {
		q.Unlock()
		if errors.Is(err, errBusy) {
			return nil, nil
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	h.startRefresh(opts.Stale / 2)
	return h, nil
}

// errBusy is mkdirLoop's answer, when it may not wait, to a live lock.
var errBusy = errors.New("lock is held")

// mkdirLoop makes the lock directory, taking over a stale or orphaned one,
// and waits out a live one (with backoff, until deadline or ctx ends) if
// wait is set; else it returns errBusy at once.
func (h *holder) mkdirLoop(ctx context.Context, deadline time.Time, wait bool) error {
	backoff := firstBackoff
	for {
		err := os.Mkdir(h.dir, DirPerm)
		if err == nil {
			return h.claim()
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		taken, err := h.tryTakeOver()
		if err != nil {
			return err
		}
		if taken {
			continue // mkdir again at once, as proper-lockfile does
		}
		if !wait {
			return errBusy
		}
		left := time.Until(deadline)
		if left <= 0 {
			return context.DeadlineExceeded
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(backoff, left)):
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// tryTakeOver removes the existing lock directory when it is stale, or when
// it is the leftover of a paneteam holder that died (we hold the flock, so
// no paneteam process holds it, and its mtime is the one that holder
// recorded). It reports whether the directory is gone.
func (h *holder) tryTakeOver() (bool, error) {
	st, err := os.Lstat(h.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if !st.IsDir() {
		// A regular file or a link here blocks Claude Code's lock for
		// good; it is not ours to delete, nor a link ours to follow.
		what := "a regular file"
		if st.Mode()&fs.ModeSymlink != 0 {
			what = "a symbolic link"
		}
		return false, fmt.Errorf("%s is %s, not a lock directory: "+
			"it blocks every writer of this file; remove it by hand once no process is writing", h.dir, what)
	}
	orphan := h.recorded().Equal(st.ModTime())
	if !orphan && !st.ModTime().Before(time.Now().Add(-h.stale)) {
		return false, nil
	}
	if err := os.Remove(h.dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("remove stale lock: %w", err)
	}
	return true, nil
}

// claim stamps the new lock directory and records its mtime in the flock
// file for the next paneteam process.
func (h *holder) claim() error {
	if err := h.touch(); err != nil {
		os.Remove(h.dir)
		return err
	}
	return nil
}

func (h *holder) touch() error {
	now := time.Now()
	if err := os.Chtimes(h.dir, now, now); err != nil {
		return err
	}
	// Read back: the file system may keep less than nanoseconds.
	st, err := os.Lstat(h.dir)
	if err != nil {
		return err
	}
	h.mtime = st.ModTime()
	return h.writeRecord(h.mtime)
}

// The record in the flock file: the lock directory's mtime, and the
// device and inode of the flock file as its writer saw it, then a check
// value, each at a fixed width. The flock only excludes processes that
// lock that same file through the same kernel: a process on another
// machine reaching the folder through a network mount (sshfs), or
// through another mount of it, holds a flock of its own at the same time.
// Such a holder's record names another device or inode than the reader
// sees, so the reader does not take its live lock for a dead holder's.
// The check value makes a record partly overwritten by an older paneteam
// (which wrote the mtime alone) count as none.
const (
	recordWidth = 20 // holds any UnixNano until the year 2286, and any uint64
	recordLen   = 4*recordWidth + 3
)

var noRecord = time.Time{}

// fileID is a file's device and inode, as this process sees them.
type fileID struct{ dev, ino uint64 }

func recordCheck(ns int64, id fileID) uint64 {
	return uint64(ns) ^ id.dev*0x9E3779B97F4A7C15 ^ id.ino*0xC2B2AE3D27D4EB4F ^ 0x5041_4E45_5445_414D
}

// writeRecord writes t into the flock file in place, at a fixed width:
// no truncate, so the file keeps its one block instead of freeing and
// allocating it again on every lock and release (which cost more than the
// rest of taking the lock). noRecord, all zeros, is a cleared record.
func (h *holder) writeRecord(t time.Time) error {
	f, err := safefs.OpenFile(h.record, os.O_WRONLY|os.O_CREATE, FilePerm)
	if err != nil {
		return err
	}
	line := strings.Repeat("0", recordWidth) + strings.Repeat(" "+strings.Repeat("0", recordWidth), 3)
	if !t.Equal(noRecord) {
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return err
		}
		ns, id := t.UnixNano(), idOf(fi)
		line = fmt.Sprintf("%0*d %0*d %0*d %0*d", recordWidth, ns, recordWidth, id.dev, recordWidth, id.ino, recordWidth, recordCheck(ns, id))
	}
	_, err = f.WriteAt([]byte(line), 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// recorded is the lock directory mtime a paneteam holder recorded through
// this very flock file (same device and inode as this process sees it),
// or noRecord.
func (h *holder) recorded() time.Time {
	f, err := safefs.OpenFile(h.record, os.O_RDONLY, 0)
	if err != nil {
		return noRecord
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return noRecord
	}
	b := make([]byte, recordLen+1)
	n, _ := io.ReadFull(f, b)
	fields := strings.Fields(string(b[:n]))
	if n != recordLen || len(fields) != 4 {
		return noRecord
	}
	var v [4]uint64
	for i, s := range fields {
		if v[i], err = strconv.ParseUint(s, 10, 64); err != nil {
			return noRecord
		}
	}
	ns, id := int64(v[0]), fileID{dev: v[1], ino: v[2]}
	if ns == 0 || id != idOf(fi) || v[3] != recordCheck(ns, id) {
		return noRecord
	}
	return time.Unix(0, ns)
}

// startRefresh keeps the lock fresh while it is held, as proper-lockfile's
// holder does, and notices when someone else changed it. A timer, not a
// goroutine: most holds end in a few milliseconds, long before the first
// refresh, and a goroutine would cost every one of them its start and its
// stop.
func (h *holder) startRefresh(every time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var tick func()
	tick = func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.done || h.lost {
			return
		}
		if err := h.check(); err != nil {
			h.lost = true
		} else if err := h.touch(); err != nil {
			h.lost = true
		}
		if !h.lost {
			h.timer = time.AfterFunc(every, tick)
		}
	}
	h.timer = time.AfterFunc(every, tick)
}

// check reports ErrCompromised when the lock directory is not the one this
// holder made. Callers hold h.mu.
func (h *holder) check() error {
	if h.lost {
		return ErrCompromised
	}
	st, err := os.Lstat(h.dir)
	if err != nil || !st.IsDir() || !st.ModTime().Equal(h.mtime) {
		return ErrCompromised
	}
	return nil
}

// valid reports whether the lock is still this holder's.
func (h *holder) valid() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.check()
}

func (h *holder) release() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.queue.Unlock()
	h.done = true
	if h.timer != nil {
		h.timer.Stop()
	}
	if err := h.check(); err != nil {
		return fmt.Errorf("release %s: %w", h.dir, err)
	}
	if err := syscall.Rmdir(h.dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("release %s: %w", h.dir, &fs.PathError{Op: "rmdir", Path: h.dir, Err: err})
	}
	// After the rmdir: a record naming a directory that is gone matches
	// nothing, while a record cleared first could leave a live-looking lock.
	h.writeRecord(noRecord)
	return nil
}
