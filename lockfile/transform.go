package lockfile

import (
	"context"
	"errors"
	"fmt"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// Transform is the one way paneteam changes a shared file: take the lock,
// re-read the file, let fn compute the new content, write it atomically,
// release. When fn returns nil content (and no error) nothing is written.
// An error from fn is returned as it is and nothing is written.
func Transform(ctx context.Context, path string, opts Options, fn func(old []byte) ([]byte, error)) error {
	return TransformThen(ctx, path, opts, fn, nil)
}

// TransformThen is Transform with a step run after a successful write,
// still under the lock (for example, to retire what the write made
// durable before anyone else can look). It does not run when nothing was
// written; a nil after is Transform.
func TransformThen(ctx context.Context, path string, opts Options, fn func(old []byte) ([]byte, error), after func()) error {
	return TransformUnless(ctx, path, opts, nil, fn, after)
}

// TransformUnless is TransformThen for a caller whose change another
// paneteam process may make for it while it waits (mailbox's group
// commit): settled is asked once no other paneteam process is writing
// path, before Claude Code's lock is taken, and true ends the call with
// nothing locked or written. A nil settled is TransformThen.
func TransformUnless(ctx context.Context, path string, opts Options, settled func() bool, fn func(old []byte) ([]byte, error), after func()) error {
	h, err := acquire(ctx, path, opts, settled)
	if errors.Is(err, errSettled) {
		return nil
	}
	if err != nil {
		return err
	}
	return transformWith(h, path, fn, after)
}

// TryTransformThen is TransformThen when the lock is free at once; when it
// is not (another process holds or queues for it), it changes nothing and
// reports done=false, so the caller can queue its change instead of
// waiting (mailbox's group commit does).
func TryTransformThen(path string, opts Options, fn func(old []byte) ([]byte, error), after func()) (done bool, err error) {
	h, err := tryAcquire(path, opts)
	if err != nil || h == nil {
		return false, err
	}
	return true, transformWith(h, path, fn, after)
}

func transformWith(h *holder, path string, fn func(old []byte) ([]byte, error), after func()) error {
	wrote := false
	werr := transformHeld(h, path, func(old []byte) ([]byte, error) {
		data, err := fn(old)
		wrote = err == nil && data != nil
		return data, err
	})
	if werr == nil && wrote && after != nil {
		after()
	}
	rerr := h.release()
	if werr != nil {
		return werr
	}
	return rerr
}

func transformHeld(h *holder, path string, fn func([]byte) ([]byte, error)) error {
	old, err := safefs.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	data, err := fn(old)
	if err != nil || data == nil {
		return err
	}
	// The write is only safe while the lock is still ours.
	if err := h.valid(); err != nil {
		return fmt.Errorf("write %s: %w; nothing was written", path, err)
	}
	return WriteAtomic(path, data)
}

// IsTimeout reports whether err is a lock wait that ran out.
func IsTimeout(err error) bool {
	var te *TimeoutError
	return errors.As(err, &te)
}
