package flockwait

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

func TestLockWaitsThenGivesUpAndReleasesLater(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.flock")
	holder := flock.New(p)
	if err := Lock(context.Background(), holder); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := Lock(ctx, flock.New(p)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the deadline, got %v", err)
	}
	holder.Unlock()
	// The abandoned waiter got the lock once free and must let it go.
	deadline := time.Now().Add(5 * time.Second)
	for {
		ok, err := flock.New(p).TryLock()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("an abandoned wait kept the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
