// Package flockwait takes a gofrs/flock lock with a context: waiting does
// not poll, and ends when the context does.
package flockwait

import (
	"context"

	"github.com/gofrs/flock"
)

// Lock takes fl, giving up when ctx ends. A blocking flock cannot be
// interrupted, so an abandoned wait releases the lock when it finally gets
// it. Make a new *flock.Flock per acquisition: one shared value excludes
// nothing between goroutines.
func Lock(ctx context.Context, fl *flock.Flock) error {
	if ok, err := fl.TryLock(); err != nil {
		return err
	} else if ok {
		return nil
	}
	got := make(chan error, 1)
	go func() { got <- fl.Lock() }()
	select {
	case err := <-got:
		return err
	case <-ctx.Done():
		go func() {
			if <-got == nil {
				fl.Unlock()
			}
		}()
		return ctx.Err()
	}
}
