package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
	"github.com/paneteam/paneteam/internal/flockwait"
)

// Lock serialises pane creation on this server across processes: between
// reading the panes, splitting and re-laying out, no other paneteam may
// split the same window, or two spawns would pick the same target and
// layouts would interleave. The lock is a flock on a file beside the
// socket (socket folders are private to their user), created 0600 and
// never deleted (deleting a flock file lets two holders in at once).
// It returns the release function; waiting ends with ctx.
func (s Server) Lock(ctx context.Context) (unlock func(), err error) {
	sock, err := s.SocketPath()
	if err != nil {
		return nil, err
	}
	// The folder of a -L socket may not exist before the server starts;
	// tmux accepts it when it is the user's and mode 0700.
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", s, err)
	}
	path := sock + ".paneteam-lock"
	fl := flock.New(path, flock.SetPermissions(0o600))
	if err := flockwait.Lock(ctx, fl); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("another paneteam held it too long: %w", err)
		}
		return nil, fmt.Errorf("wait for the pane lock %s: %w", path, err)
	}
	return func() { fl.Unlock() }, nil
}

// RemoveLock deletes the pane lock file of a server that has been stopped,
// so a private server leaves nothing behind. It deletes the file only
// while holding the lock itself, and leaves it when another paneteam
// holds it (a spawn in progress).
func (s Server) RemoveLock() error {
	sock, err := s.SocketPath()
	if err != nil {
		return err
	}
	path := sock + ".paneteam-lock"
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if errors.Is(err, os.ErrNotExist) || err == nil && !ok {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove pane lock %s: %w", path, err)
	}
	defer fl.Unlock()
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove pane lock %s: %w", path, err)
	}
	return nil
}
