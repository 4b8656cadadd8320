package flockwait_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/sys/flockwait"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

func TestLockWaitsThenGivesUpAndReleasesLater(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.flock")
	holder := flock.New(p)
	if err := flockwait.Lock(context.Background(), holder); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := flockwait.Lock(ctx, flock.New(p)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the deadline, got %v", err)
	}
	holder.Unlock()
	// The abandoned waiter got the lock once free and must let it go.
	testutil.Eventually(t, 5*time.Second, "an abandoned wait kept the lock", func() error {
		ok, err := flock.New(p).TryLock()
		if err == nil && !ok {
			err = errors.New("still held")
		}
		return err
	})
}

// askCtx records whether anything asked for Done or Err, as paneteam's top
// context installs its signal handler when asked.
type askCtx struct {
	context.Context
	asked atomic.Bool
}

func (c *askCtx) Done() <-chan struct{} { c.asked.Store(true); return c.Context.Done() }
func (c *askCtx) Err() error            { c.asked.Store(true); return c.Context.Err() }

// A wait shorter than Grace never asks its context; a longer one does, and
// ends when the context does.
func TestShortWaitDoesNotAskTheContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.flock")
	holder := flock.New(p)
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(20*time.Millisecond, func() { holder.Unlock() })
	ctx := &askCtx{Context: context.Background()}
	fl := flock.New(p)
	if err := flockwait.Lock(ctx, fl); err != nil {
		t.Fatal(err)
	}
	fl.Unlock()
	if ctx.asked.Load() {
		t.Fatal("a 20 ms wait asked its context")
	}

	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	defer holder.Unlock()
	cctx, cancel := context.WithCancel(context.Background())
	ctx = &askCtx{Context: cctx}
	time.AfterFunc(flockwait.Grace+100*time.Millisecond, cancel)
	start := time.Now()
	if err := flockwait.Lock(ctx, flock.New(p)); !errors.Is(err, context.Canceled) {
		t.Fatalf("want the cancel, got %v", err)
	}
	if took := time.Since(start); took > flockwait.Grace+2*time.Second {
		t.Fatalf("the cancelled wait went on for %s", took)
	}
	if !ctx.asked.Load() {
		t.Fatal("a long wait never asked its context")
	}
}

// A deadline ends a wait with context.DeadlineExceeded, also one shorter
// than Grace.
func TestLockUntilDeadline(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.flock")
	holder := flock.New(p)
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	defer holder.Unlock()
	start := time.Now()
	err := flockwait.LockUntil(context.Background(), flock.New(p), time.Now().Add(50*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the deadline, got %v", err)
	}
	if took := time.Since(start); took < 40*time.Millisecond || took > 2*time.Second {
		t.Fatalf("gave up after %s", took)
	}
}

// A waiter whose lock file was removed under it by the holder (as
// RemoveIfFree does) locks the file now at the path, so it and a newcomer
// never hold the lock at once; a held lock is never removed.
func TestLockInPlaceFollowsARemovedFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.lock")
	holder, err := flockwait.LockInPlace(t.Context(), p, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if removed, err := flockwait.RemoveIfFree(p, nil, false); removed || err != nil {
		t.Fatalf("RemoveIfFree of a held lock = %v, %v; want it kept", removed, err)
	}
	got := make(chan *flock.Flock, 1)
	go func() {
		fl, err := flockwait.LockInPlace(context.Background(), p, time.Time{})
		if err != nil {
			t.Error(err)
		}
		got <- fl
	}()
	time.Sleep(50 * time.Millisecond) // the waiter waits on the old file
	os.Remove(p)
	holder.Unlock()
	waiter := <-got
	if ok, err := flock.New(p).TryLock(); ok || err != nil {
		t.Fatalf("a newcomer locked the file while the waiter held the lock (%v)", err)
	}
	waiter.Unlock()
	if removed, err := flockwait.RemoveIfFree(p, nil, false); !removed || err != nil {
		t.Fatalf("RemoveIfFree of a free lock = %v, %v", removed, err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the free lock is still there: %v", err)
	}
}
