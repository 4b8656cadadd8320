package mailbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// Inbox is one agent's inbox file.
type Inbox struct {
	Path string
	Lock lockfile.Options
	// Signer, when set, signs the entries written as the lead (see
	// SignedBy).
	Signer Signer
	// SummarisesIdle makes every write through this inbox, and every read
	// (ReadAll, Unread, Watch), archive the idle notices newer ones
	// supersede (idle.go), under the lock. Set it on the lead's inbox of a
	// team paneteam leads, never where Claude Code leads.
	SummarisesIdle bool
	// Brief makes Each and EachArchived, for a reader that only counts,
	// give each message its sender, time and read flag, and its text only
	// when it can be a request or an idle notice (it holds "_request",
	// "idle_notification" or a \u escape): the rest is left empty. The
	// same entries are read and skipped, much faster (brief.go).
	Brief bool
}

// New returns the inbox at path.
func New(path string, lock lockfile.Options) *Inbox { return &Inbox{Path: path, Lock: lock} }

// CorruptError reports an inbox that did not parse and was moved aside.
type CorruptError struct {
	Path    string // where the inbox was
	MovedTo string // where its bytes are now
	Err     error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("inbox %s is not a JSON array of messages (%v); it was moved to %s so nothing in it is lost, "+
		"and a fresh inbox will be started on the next write: inspect the moved file and re-send what matters",
		e.Path, e.Err, e.MovedTo)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// unlockedReadTries covers Claude Code's in-place rewrite: an unlocked
// reader can catch the file half written.
const (
	unlockedReadTries = 10
	unlockedReadPause = 10 * time.Millisecond
)

// ReadAll returns every message paneteam can read (Entries says which
// entries it could not).
func (in *Inbox) ReadAll() ([]Message, error) {
	msgs, _, err := in.Entries()
	return msgs, err
}

// Entries returns every message, and the entries that are not messages
// paneteam can read (left in place, see SkippedEntry), without taking the
// lock (the file is replaced atomically by paneteam; a torn in-place write
// by Claude Code is retried). A missing inbox is empty. With
// SummarisesIdle, stale idle notices found are first archived under the
// lock, if it is free at once; otherwise the messages are returned as they
// are (nothing is lost, and a reader never waits for a writer: the next
// read tries again).
func (in *Inbox) Entries() ([]Message, []*SkippedEntry, error) {
	e, err := in.readEntries()
	if err != nil || !in.SummarisesIdle || len(StaleIdle(e.msgs)) == 0 {
		return e.msgs, e.skipped(in.Path), err
	}
	if n, err := in.summarise(context.Background(), true); err != nil || n == 0 {
		return e.msgs, e.skipped(in.Path), nil
	}
	e, err = in.readEntries()
	return e.msgs, e.skipped(in.Path), err
}

func (in *Inbox) readAll() ([]Message, error) {
	e, err := in.readEntries()
	return e.msgs, err
}

func (in *Inbox) readEntries() (entries, error) {
	var lastErr error
	for i := 0; i < unlockedReadTries; i++ {
		b, err := in.read()
		if errors.Is(err, fs.ErrNotExist) {
			return entries{}, nil
		}
		if err != nil {
			return entries{}, fmt.Errorf("read inbox: %w", err)
		}
		e, err := decodeEntries(b)
		if err == nil {
			return e, nil
		}
		lastErr = err
		time.Sleep(unlockedReadPause)
	}
	return entries{}, fmt.Errorf("inbox %s does not parse: %w", in.Path, lastErr)
}

// Unread returns the messages not marked read, in order.
func (in *Inbox) Unread() ([]Message, error) {
	all, err := in.ReadAll()
	if err != nil {
		return nil, err
	}
	var out []Message
	for _, m := range all {
		if !m.Read {
			out = append(out, m)
		}
	}
	return out, nil
}

// Append adds messages as unread and returns only once they are durably
// on disk. The inbox is created if missing.
func (in *Inbox) Append(ctx context.Context, msgs ...Message) error {
	msgs = append([]Message(nil), msgs...)
	for i := range msgs {
		if err := msgs[i].Validate(); err != nil {
			return err
		}
		if err := in.prepare(&msgs[i]); err != nil {
			return err
		}
	}
	// The file must exist before it can be locked; another process may move
	// it aside between the two steps, so try again a few times.
	for attempt := 0; ; attempt++ {
		if err := in.ensure(); err != nil {
			return err
		}
		err := in.transform(ctx, func(cur []Message) ([]Message, error) {
			cur = append(cur, msgs...)
			return cur, nil
		})
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue
		}
		return err
	}
}

// MarkRead marks exactly the given messages read: each one marks one unread
// entry equal to it, and nothing that arrived meanwhile. It returns how many
// were marked. A missing inbox marks nothing.
func (in *Inbox) MarkRead(ctx context.Context, msgs []Message) (int, error) {
	n := 0
	err := in.transform(ctx, func(cur []Message) ([]Message, error) {
		n = 0
		used := make([]bool, len(cur))
		for _, want := range msgs {
			for i := range cur {
				if !used[i] && !cur[i].Read && same(cur[i], want) {
					cur[i].Read, used[i] = true, true
					n++
					break
				}
			}
		}
		if n == 0 {
			return nil, nil
		}
		return cur, nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	return n, err
}

// Clear empties the inbox. It never creates a missing one.
func (in *Inbox) Clear(ctx context.Context) error {
	err := in.transform(ctx, func([]Message) ([]Message, error) { return []Message{}, nil })
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Reset makes the inbox exist and hold nothing ("[]"), as Claude Code's
// lead leaves a teammate's inbox before writing its first prompt
// (docs/PROTOCOL.md §14). What it held goes to the archive, marked
// read ('inbox --archived' shows it), not away.
func (in *Inbox) Reset(ctx context.Context) error {
	if err := in.ensure(); err != nil {
		return err
	}
	return in.transform(ctx, func(cur []Message) ([]Message, error) {
		out := make([]Message, len(cur))
		for i, m := range cur {
			m.Read = true
			out[i] = m
		}
		return out, nil
	})
}

// Update applies fn to the messages under the lock; fn returning nil
// messages writes nothing.
func (in *Inbox) Update(ctx context.Context, fn func([]Message) ([]Message, error)) error {
	return in.transform(ctx, fn)
}

// transform changes the inbox under its lock. A nil fn only writes what
// senders queued.
func (in *Inbox) transform(ctx context.Context, fn func([]Message) ([]Message, error)) error {
	return in.transformUnless(ctx, fn, nil)
}

// transformUnless is transform with settled (see
// lockfile.TransformUnless).
func (in *Inbox) transformUnless(ctx context.Context, fn func([]Message) ([]Message, error), settled func() bool) error {
	if _, err := os.Lstat(in.Path); err != nil {
		return fmt.Errorf("inbox %s: %w", in.Path, err)
	}
	_, err := in.write(ctx, fn, nil, false, settled)
	return err
}

// write changes the inbox under its lock: it takes along what senders
// queued, appends own (the caller's messages, sent after everything
// queued), then applies fn. With try set it writes only if the lock is
// free at once, and reports whether it did. settled: see
// lockfile.TransformUnless.
func (in *Inbox) write(ctx context.Context, fn func([]Message) ([]Message, error), own []Message, try bool, settled func() bool) (bool, error) {
	var taken []string
	change := func(old []byte) ([]byte, error) {
		taken = nil
		// Every write first takes along what senders queued (spool.go), so
		// that after a holder died between taking the queue and retiring
		// it, the very next write of any kind finds what it took and adds
		// only what the inbox does not hold yet.
		queue, files, err := takeSpool(SpoolDir(in.Path))
		if err != nil {
			return nil, err
		}
		if fn == nil && len(files) == 0 && len(own) == 0 {
			return nil, nil // only draining, and nothing is queued: skip the parse
		}
		var fresh, leftover []Message
		for _, q := range queue {
			if q.leftover {
				leftover = append(leftover, q.msg)
			} else {
				fresh = append(fresh, q.msg)
			}
		}
		fresh = append(fresh, own...)
		if fn == nil && len(leftover) == 0 && (!in.SummarisesIdle || noIdle(old, fresh)) {
			out, archive, ok, err := spliceDrain(old, fresh)
			if err != nil {
				return nil, err
			}
			if ok {
				if err := in.archive(archive); err != nil {
					return nil, err
				}
				taken = files
				return out, nil
			}
		}
		ents, err := decodeEntries(old)
		if err != nil {
			return nil, in.moveAside(err)
		}
		cur := ents.msgs
		taken = files
		cur = append(appendMissing(cur, leftover), fresh...)
		var next []Message
		if fn != nil {
			if next, err = fn(cur); err != nil {
				return nil, err
			}
		}
		if next == nil {
			if len(files) == 0 && len(own) == 0 {
				return nil, nil
			}
			next = cur
		}
		if in.SummarisesIdle {
			summariseIdle(next)
		}
		// Read messages leave for the archive (archive.go) on every write,
		// so the inbox stays small whatever its history.
		if next, err = in.prune(next); err != nil {
			return nil, err
		}
		return encodeEntries(next, ents.kept)
	}
	after := func() {
		for _, f := range taken {
			os.Remove(f)
		}
	}
	if err := in.checkFolder(); err != nil {
		return false, err
	}
	if try {
		return lockfile.TryTransformThen(in.Path, in.Lock, change, after)
	}
	return true, lockfile.TransformUnless(ctx, in.Path, in.Lock, settled, change, after)
}

// appendMissing appends the queued messages a dead holder had taken that
// the inbox does not hold yet: the ones it holds, that holder wrote before
// it could retire their queue files.
func appendMissing(cur, queued []Message) []Message {
	if len(queued) == 0 {
		return cur
	}
	have := map[messageKey]int{}
	for _, m := range cur {
		have[keyOf(m)]++
	}
	for _, m := range queued {
		if k := keyOf(m); have[k] > 0 {
			have[k]--
			continue
		}
		cur = append(cur, m)
	}
	return cur
}

// ensure creates the inbox as [] if it is missing, atomically, so no reader
// ever sees it empty.
func (in *Inbox) ensure() error {
	if _, err := os.Lstat(in.Path); err == nil {
		return nil // the common case: one system call
	}
	if err := os.MkdirAll(filepath.Dir(in.Path), lockfile.DirPerm); err != nil {
		return fmt.Errorf("create inbox folder: %w", err)
	}
	if err := in.checkFolder(); err != nil {
		return err
	}
	if _, err := lockfile.CreateExclusive(in.Path, []byte("[]")); err != nil {
		return fmt.Errorf("create inbox: %w", err)
	}
	return nil
}

// read reads the inbox without following a link (docs/PROTOCOL.md §2):
// neither the file nor its team's inboxes folder may be one.
func (in *Inbox) read() ([]byte, error) {
	if err := in.checkFolder(); err != nil {
		return nil, err
	}
	return safefs.ReadFile(in.Path)
}

// checkFolder refuses a link, or anything but a folder, in place of the
// team's inboxes folder: paneteam would create the inbox, its lock, its
// archive and its queue wherever the link leads. The team folder above it
// may be a link (a remote host's team folder leads to its mount); an
// inbox outside a team's layout has only its own file checked.
func (in *Inbox) checkFolder() error {
	dir := filepath.Dir(in.Path)
	if filepath.Base(dir) != "inboxes" {
		return nil
	}
	if err := safefs.Dir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// moveAside renames an unparsable inbox (we hold its lock) so that no
// writer overwrites what it holds.
func (in *Inbox) moveAside(cause error) error {
	dest := fmt.Sprintf("%s.corrupt-%s", in.Path, time.Now().UTC().Format("20060102T150405.000Z"))
	if err := os.Rename(in.Path, dest); err != nil {
		return fmt.Errorf("inbox %s does not parse (%v) and could not be moved aside: %w", in.Path, cause, err)
	}
	return &CorruptError{Path: in.Path, MovedTo: dest, Err: cause}
}

// Encode lays an inbox out as Claude Code does: 2-space JSON, no trailing
// newline.
func Encode(msgs []Message) ([]byte, error) {
	if msgs == nil {
		msgs = []Message{}
	}
	return jsonx.MarshalIndent(msgs)
}

// IsTempFile reports whether a file name in an inboxes folder is a
// writer's temporary file, not an inbox: Claude Code's
// "<agent>.json.tmp.<8 hex>" (docs/PROTOCOL.md §6), paneteam's own
// hidden temp and queue files. Anything listing inboxes skips these.
func IsTempFile(name string) bool {
	return strings.HasPrefix(name, ".") || strings.Contains(name, ".tmp.") || strings.HasSuffix(name, ".tmp")
}
