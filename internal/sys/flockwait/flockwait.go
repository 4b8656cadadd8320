// Package flockwait takes a gofrs/flock lock with a context: waiting does
// not poll, and ends when the context does. It also keeps a lock whose
// file may be removed safe (LockInPlace, RemoveIfFree).
package flockwait

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// Grace is how long a wait goes on before it first asks its context.
// Asking paneteam's top context installs its SIGINT/SIGTERM handler, about
// 0.4 ms of CPU in a process that costs 3 ms in all, and most waits (a
// queue of writers, each holding a team file for a few milliseconds) end
// sooner. A signal in that first moment ends the process as it ends any
// program that has not asked for signals; what it was writing is written
// to a temporary name first, and a message it queued is still delivered.
const Grace = 250 * time.Millisecond

// Lock takes fl, giving up when ctx ends. A blocking flock cannot be
// interrupted, so an abandoned wait releases the lock when it finally gets
// it. Make a new *flock.Flock per acquisition: one shared value excludes
// nothing between goroutines.
func Lock(ctx context.Context, fl *flock.Flock) error {
	return LockUntil(ctx, fl, time.Time{})
}

// LockUntil is Lock that also gives up at deadline (zero: none), with
// context.DeadlineExceeded.
func LockUntil(ctx context.Context, fl *flock.Flock, deadline time.Time) error {
	if ok, err := fl.TryLock(); err != nil {
		return err
	} else if ok {
		return nil
	}
	got := make(chan error, 1)
	go func() { got <- fl.Lock() }()
	abandon := func(err error) error {
		go func() {
			if <-got == nil {
				fl.Unlock()
			}
		}()
		return err
	}

	// Deadline does not install anything: only Done and Err do.
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	grace := Grace
	if !deadline.IsZero() {
		grace = min(grace, time.Until(deadline))
	}
	if grace > 0 {
		t := time.NewTimer(grace)
		select {
		case err := <-got:
			t.Stop()
			return err
		case <-t.C:
		}
	}

	var expired <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expired = t.C
	}
	select {
	case err := <-got:
		return err
	case <-ctx.Done():
		return abandon(ctx.Err())
	case <-expired:
		return abandon(context.DeadlineExceeded)
	}
}

// A lock file may be deleted once nobody needs it (RemoveIfFree), which
// with a bare flock would let two holders in at once: one waiting on the
// deleted file, one on its replacement. So a holder checks, once it has
// the lock, that the path still names the file it locked, and starts
// again when it does not (the scheme of lockfile-create and of Git's ref
// locks): whoever holds a lock file that is still in place holds the only
// lock.

// LockInPlace takes the flock on the file at path (made 0600 when
// missing), waiting until ctx ends or deadline (zero: none) passes, and
// returns it once the file it holds is still the one at path. The
// folder must exist: a missing one is an error (os.ErrNotExist).
func LockInPlace(ctx context.Context, path string, deadline time.Time) (*flock.Flock, error) {
	for {
		fl := flock.New(path, flock.SetPermissions(0o600))
		if err := LockUntil(ctx, fl, deadline); err != nil {
			return nil, err
		}
		if InPlace(fl) {
			return fl, nil
		}
		fl.Unlock() // removed while we waited: lock its successor
	}
}

// InPlace reports whether the file fl holds is still the one at its path.
func InPlace(fl *flock.Flock) bool {
	held, err := fl.Stat()
	if err != nil {
		return false
	}
	cur, err := os.Stat(fl.Path())
	return err == nil && os.SameFile(held, cur)
}

// RemoveIfFree deletes the lock file at path when nobody holds it and
// gone (nil: always), asked while holding it, agrees; a held lock is
// someone's wait or work and stays. It reports whether it removed the
// file (with dryRun: whether it would have). A missing file is no error.
func RemoveIfFree(path string, gone func() bool, dryRun bool) (bool, error) {
	fl := flock.New(path, flock.SetPermissions(0o600), flock.SetFlag(os.O_RDWR))
	ok, err := fl.TryLock()
	if errors.Is(err, os.ErrNotExist) || err == nil && !ok {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove lock %s: %w", path, err)
	}
	defer fl.Unlock()
	if !InPlace(fl) || gone != nil && !gone() {
		return false, nil
	}
	if dryRun {
		return true, nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("remove lock %s: %w", path, err)
	}
	return true, nil
}
