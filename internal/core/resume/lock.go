package resume

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/sys/flockwait"
)

// LockName is the file, under the team root, whose flock makes resumes
// take turns: a tmux-resurrect hook and a person resuming at the same
// moment would otherwise each start the same teammate.
const LockName = ".paneteam-resume.flock"

// lockTimeout bounds the wait for another resume, which starts a few
// panes (a resumed Claude Code is watched ClaudeStartupCheck each).
const lockTimeout = 2 * time.Minute

// lock takes the resume lock of the team root.
func (o Options) lock(ctx context.Context) (func(), error) {
	path := filepath.Join(o.Team.Root, LockName)
	fl := flock.New(path)
	lctx, cancel := context.WithTimeout(ctx, lockTimeout)
	defer cancel()
	if err := flockwait.Lock(lctx, fl); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, &BusyError{Path: path, Held: lockTimeout}
		}
		return nil, fmt.Errorf("take the resume lock %s: %w", path, err)
	}
	return func() { fl.Unlock() }, nil
}
