package mailbox

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// Send delivers m like Append, for many paneteam senders at once: it
// returns only once m is durably in the inbox, but concurrent senders share
// writes (a group commit). Each sender first drops its message in a spool
// folder beside the inbox, ".<agent>.json.spool"; whoever holds the lock
// next takes every spooled message (takeSpool), appends them in one
// rewrite and one fsync, and removes their spool files after the write and
// before releasing the lock. A sender whose spool file is gone when its
// turn comes knows its message was written, and writes nothing. If a
// holder dies between taking and that removal, the next locked write of
// any kind checks the messages it took against the inbox and adds only
// those it does not hold.
//
// Under the inbox's lock nothing changes for Claude Code: each write is
// still one locked, atomic rewrite. What changes is the cost of 50 senders
// at once: a handful of rewrites instead of 50.
//
// A sender that gives up (its lock wait timed out) removes its spool file;
// if a holder took the message along in that very moment, the message
// arrives although the send reported failure.
func (in *Inbox) Send(ctx context.Context, m Message) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if err := in.prepare(&m); err != nil {
		return err
	}
	if err := in.ensure(); err != nil {
		return err
	}
	// Uncontended, the common case: the lock is free now, so m goes
	// straight into the inbox, with whatever others queued before it, and
	// needs no queue file of its own. A busy lock, or an inbox moved aside
	// since ensure, takes the queue.
	done, err := in.write(ctx, nil, []Message{m}, true, nil)
	if done || (err != nil && !errors.Is(err, fs.ErrNotExist)) {
		return err
	}
	own, err := in.spool(m)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		err = in.flush(ctx, own)
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			// Moved aside between ensure and the lock: start a fresh inbox.
			if err = in.ensure(); err == nil {
				continue
			}
		}
		if err != nil {
			os.Remove(own)
		}
		return err
	}
}

// SpoolDir is where senders queue messages for the inbox at inboxPath.
func SpoolDir(inboxPath string) string {
	dir, base := filepath.Split(inboxPath)
	return filepath.Join(dir, "."+base+".spool")
}

// spool writes m into the spool folder, complete (temp file and rename)
// so a holder never reads half of it. No fsync: the message is not
// acknowledged until the inbox itself is durably written.
func (in *Inbox) spool(m Message) (string, error) {
	dir := SpoolDir(in.Path)
	// Not a link: the message would be queued, and later read, wherever
	// it leads.
	if err := safefs.Mkdir(dir, lockfile.DirPerm); err != nil {
		return "", fmt.Errorf("queue message: %w", err)
	}
	// The element as the inbox will hold it: a JSON object like any other,
	// without a first use of the reflective encoder (see element).
	b, err := element(m)
	if err != nil {
		return "", fmt.Errorf("queue message: %w", err)
	}
	// The nonce only keeps two senders of one pid and nanosecond apart.
	var nonce [6]byte
	binary.LittleEndian.PutUint32(nonce[:4], rand.Uint32())
	binary.LittleEndian.PutUint16(nonce[4:], uint16(rand.Uint32()))
	// Names sort in send order: nanoseconds first, fixed width.
	name := filepath.Join(dir, fmt.Sprintf("%020d-%d-%s.msg", time.Now().UnixNano(), os.Getpid(), hex.EncodeToString(nonce[:])))
	tmp := name + ".tmp"
	if err := safefs.WriteFile(tmp, b, lockfile.FilePerm); err != nil {
		return "", fmt.Errorf("queue message: %w", err)
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("queue message: %w", err)
	}
	return name, nil
}

// flush takes the lock and writes every queued message, the caller's
// included unless a previous holder already did: every locked write drains
// the queue (see transform). When the caller's queue file own is gone by
// the time no other paneteam process is writing (a holder took it, wrote
// it and retired it), there is nothing left to do, and flush returns
// without taking Claude Code's lock: under contention most senders end
// this way, and each would otherwise lock, read and release the inbox for
// nothing.
func (in *Inbox) flush(ctx context.Context, own string) error {
	return in.transformUnless(ctx, nil, func() bool { return retired(own) })
}

// retired reports whether queue file f was written and removed by a
// holder: neither it nor its taken name is there.
func retired(f string) bool {
	_, err := os.Lstat(f)
	if !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	_, err = os.Lstat(f + takenSuffix)
	return errors.Is(err, fs.ErrNotExist)
}

// queued is a message in the send queue, as a holder takes it.
type queued struct {
	msg Message
	// leftover: an earlier holder took it and did not finish its write, so
	// the inbox may already hold it.
	leftover bool
}

// takenSuffix marks a queue file a holder has taken for the write it is
// making. Removed after that write; found by a later holder only when the
// write may not have happened.
const takenSuffix = ".taken"

// takeSpool takes the queued messages for the write the caller (holding
// the inbox's lock) is about to make, in send order, and returns them with
// the files to remove once that write is durable. Each file is first
// renamed with takenSuffix, so that should this holder die, the next one
// checks those messages against the inbox instead of adding them again;
// messages queued since are never checked, so identical messages sent in
// the same millisecond are both delivered. A file whose sender gave up
// first is not taken; a file that does not parse (only a crash mid-rename
// could leave one) is taken and dropped: its sender was never acknowledged.
func takeSpool(dir string) ([]queued, []string, error) {
	if err := safefs.Dir(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, fmt.Errorf("read message queue: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read message queue: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".msg") || strings.HasSuffix(n, ".msg"+takenSuffix) {
			names = append(names, n)
		}
	}
	// Send order: names start with the time they were queued.
	sort.Slice(names, func(i, j int) bool {
		return strings.TrimSuffix(names[i], takenSuffix) < strings.TrimSuffix(names[j], takenSuffix)
	})
	var out []queued
	var files []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		leftover := strings.HasSuffix(n, takenSuffix)
		if !leftover {
			if err := os.Rename(p, p+takenSuffix); errors.Is(err, fs.ErrNotExist) {
				continue // its sender gave up
			} else if err != nil {
				return nil, nil, fmt.Errorf("take queued message: %w", err)
			}
			p += takenSuffix
		}
		b, err := safefs.ReadFile(p)
		if err != nil {
			return nil, nil, fmt.Errorf("read queued message: %w", err)
		}
		files = append(files, p)
		var m Message
		if json.Unmarshal(b, &m) == nil {
			m.Read = false
			out = append(out, queued{msg: m, leftover: leftover})
		}
	}
	return out, files, nil
}
