package remote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/paneteam/paneteam/internal/sys/flockwait"
)

// The start lock. sshd's MaxSessions caps the sessions on the team's one
// connection to a host: a teammate at rest holds 2 (its pane and its
// mount), and while it starts its probes and the mount's wait come and
// go. Starts on one connection take turns, under a flock beside the
// connection's socket in the lead's state folder, from before the first
// session a start opens until the teammate's own sessions are up: two
// spawns at the same time then never take between them sessions that,
// one after the other, would have fit, never both start the connection,
// and never close it under each other. A flock ends with the process
// that holds it, so a crashed spawn wedges nothing.

// startLockSuffix ends the start lock's name, beside the ControlPath.
const startLockSuffix = ".start-lock"

// waitSay is how long a start waits for another one on the same host
// before it says so.
const waitSay = 2 * time.Second

// startLock is a held start lock.
type startLock struct {
	fl   *flock.Flock
	once sync.Once
}

// lockStart takes the start lock of c's connection, waiting while another
// start on it holds it, until ctx ends; it tells say when the wait is
// long. The lock file is removed (by drop) with the team's connection,
// so it is taken with flockwait.LockInPlace.
func lockStart(ctx context.Context, c *Client, say io.Writer) (*startLock, error) {
	path := c.ControlPath + startLockSuffix
	said := false
	for {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("wait for the start lock %s: %w", path, err)
		}
		deadline := time.Now().Add(waitSay)
		if said {
			deadline = time.Time{}
		}
		fl, err := flockwait.LockInPlace(ctx, path, deadline)
		if !said && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			fmt.Fprintf(say, "paneteam: waiting for another teammate's start on %s to finish (the sessions of both count toward sshd's MaxSessions there)\n", c.Host)
			said = true
			continue
		}
		if errors.Is(err, os.ErrNotExist) {
			continue // the folder went with the team's last teammate: make it again
		}
		if err != nil {
			return nil, fmt.Errorf("wait for the start lock %s (another teammate is starting on %s): %w", path, c.Host, err)
		}
		return &startLock{fl: fl}, nil
	}
}

// release lets the next start in; calling it again does nothing.
func (l *startLock) release() {
	l.once.Do(func() { l.fl.Unlock() })
}

// drop removes the lock file, then releases it: the team's connection to
// the host is ending and its state folder may go.
func (l *startLock) drop() {
	l.once.Do(func() {
		os.Remove(l.fl.Path())
		l.fl.Unlock()
	})
}

// sweepStartLocks removes the start locks in dir that nobody holds (a
// team's last teammate is gone; its connections to other hosts ended
// with the teammates there). A held one is a start under way and stays.
func sweepStartLocks(dir string) {
	locks, _ := filepath.Glob(filepath.Join(dir, "*"+startLockSuffix))
	for _, p := range locks {
		flockwait.RemoveIfFree(p, nil, false)
	}
}

// upWait bounds how long a start keeps the lock for its pane's session:
// a pane whose session is refused, or that fails before it runs, leaves
// no mark.
var upWait = 10 * time.Second

// upPrefix starts the name of the mark a pane leaves in the team's folder
// (teams/<team>) once its session is open on the host.
const upPrefix = ".paneteam-up-"

// newUpMark is a fresh mark's file name.
func newUpMark() string {
	b := make([]byte, 8)
	rand.Read(b)
	return upPrefix + hex.EncodeToString(b)
}

// validUpMark: name is a mark's file name, and nothing else (the job and
// the state file carry it; it never names a path).
func validUpMark(name string) bool {
	h, ok := strings.CutPrefix(name, upPrefix)
	if !ok || len(h) != 16 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// waitUp waits until the file at path exists, for at most d. It opens
// the file rather than looking at it: on a shared folder (NFS) a look
// may be answered from the lead's caches for a while, where an open
// goes to the server as far as NFS lets it (close-to-open consistency,
// nfs(5)). Past d the lock goes anyway.
func waitUp(path string, d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if f, err := os.Open(path); err == nil {
			f.Close()
			return
		}
	}
}
