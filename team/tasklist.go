package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/lockfile"
)

// Names inside a task folder that are not tasks (docs/PROTOCOL.md §12).
const (
	// listLockName is an empty regular file, created once and never
	// deleted, whose proper-lockfile lock (the directory ".lock.lock")
	// serialises id allocation between paneteam and Claude Code.
	listLockName = ".lock"
	// highWaterMarkName holds the highest id ever deleted, as decimal text
	// with no newline, so a deleted id is never handed out again.
	highWaterMarkName = ".highwatermark"
)

// ErrTaskNotFound means the task list has no task with that id.
var ErrTaskNotFound = errors.New("no such task")

// TaskList is a team's task folder, <root>/tasks/<team>/.
type TaskList struct {
	Dir  string
	Lock lockfile.Options
	// Team is the team's name: an owner Claude Code recorded as an agent
	// id (name@team) is that member (Task.OwnedBy).
	Team string
}

// Tasks returns the team's task list.
func (t Team) Tasks(opts lockfile.Options) *TaskList {
	return &TaskList{Dir: t.TasksDir(), Lock: opts, Team: t.Name}
}

// Path is the file of task id. Callers check the id first (CheckTaskID).
func (l *TaskList) Path(id string) string { return filepath.Join(l.Dir, id+".json") }

// SkippedFile is a task file that does not parse; listings leave it out
// and report it, and nothing ever rewrites it.
type SkippedFile struct {
	Path string
	Err  error
}

func (s *SkippedFile) Error() string {
	return fmt.Sprintf("skipped task file %s: %s (fix or remove it; paneteam will not overwrite it)", s.Path, jsonx.Why(s.Err))
}

func (s *SkippedFile) Unwrap() error { return s.Err }

// Claude Code rewrites task files in place, so an unlocked reader can catch
// one half written: a parse failure is retried briefly before it is believed.
const (
	taskReadTries = 5
	taskReadPause = 20 * time.Millisecond
)

// read parses the task file of id; a file that keeps failing to parse is
// reported as a *SkippedFile.
func (l *TaskList) read(id string) (*Task, error) {
	path := l.Path(id)
	var lastErr error
	for i := 0; i < taskReadTries; i++ {
		// Not through a link (docs/PROTOCOL.md §2): one planted in place of
		// a task would have its target read and, on an update, replaced.
		b, err := safefs.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("task %s: %w", id, ErrTaskNotFound)
		}
		if safefs.IsOdd(err) {
			return nil, &SkippedFile{Path: path, Err: err}
		}
		if err != nil {
			return nil, fmt.Errorf("read task %s: %w", id, err)
		}
		t, err := parseTask(b, id)
		if err == nil {
			return t, nil
		}
		// A torn write does not parse; a field of the wrong type is what
		// the file holds, and a retry would only slow every listing.
		if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) {
			return nil, &SkippedFile{Path: path, Err: err}
		}
		lastErr = err
		time.Sleep(taskReadPause)
	}
	return nil, &SkippedFile{Path: path, Err: lastErr}
}

// Get returns task id.
func (l *TaskList) Get(id string) (*Task, error) {
	if err := CheckTaskID(id); err != nil {
		return nil, err
	}
	return l.read(id)
}

// List returns every task that parses, in id order, and the files it
// skipped. A missing folder is an empty list.
func (l *TaskList) List() ([]*Task, []*SkippedFile, error) {
	entries, err := os.ReadDir(l.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list tasks: %w", err)
	}
	var tasks []*Task
	var skipped []*SkippedFile
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(id, ".") || e.IsDir() {
			continue
		}
		if CheckTaskID(id) != nil {
			skipped = append(skipped, &SkippedFile{Path: filepath.Join(l.Dir, e.Name()),
				Err: errors.New("its name is not a task id (digits)")})
			continue
		}
		t, err := l.read(id)
		var sk *SkippedFile
		switch {
		case errors.As(err, &sk):
			skipped = append(skipped, sk)
		case errors.Is(err, ErrTaskNotFound):
			// deleted since the folder was read
		case err != nil:
			return nil, nil, err
		default:
			tasks = append(tasks, t)
		}
	}
	sort.Slice(tasks, func(i, j int) bool { return idLess(tasks[i].ID, tasks[j].ID) })
	return tasks, skipped, nil
}

func idLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// ByID indexes tasks by id.
func ByID(tasks []*Task) map[string]*Task {
	m := make(map[string]*Task, len(tasks))
	for _, t := range tasks {
		m[t.ID] = t
	}
	return m
}

// Update applies fn to task id under the task's own lock (the directory
// "<id>.json.lock", as Claude Code's updateTask takes it) and writes it back
// atomically. fn may return ErrNoChange to write nothing. A file that does
// not parse is never rewritten.
func (l *TaskList) Update(ctx context.Context, id string, fn func(*Task) error) (*Task, error) {
	if err := CheckTaskID(id); err != nil {
		return nil, err
	}
	path := l.Path(id)
	var out *Task
	var fnErr error // fn's own refusal, returned as it is
	err := lockfile.Transform(ctx, path, l.Lock, func(old []byte) ([]byte, error) {
		t, err := parseTask(old, id)
		if err != nil {
			return nil, &SkippedFile{Path: path, Err: err}
		}
		if fnErr = fn(t); fnErr != nil {
			if errors.Is(fnErr, ErrNoChange) {
				out, fnErr = t, nil
				return nil, nil
			}
			return nil, fnErr
		}
		out = t
		return t.Encode()
	})
	if fnErr != nil {
		return nil, fnErr
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("task %s: %w", id, ErrTaskNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("update task %s: %w", id, err)
	}
	return out, nil
}

// withListLock runs fn holding the task list's lock, the one Claude Code
// takes to allocate ids. The lock file is created first if missing, and
// never deleted: Claude Code locks the same path.
func (l *TaskList) withListLock(ctx context.Context, fn func() error) error {
	if err := os.MkdirAll(l.Dir, lockfile.DirPerm); err != nil {
		return fmt.Errorf("create task folder: %w", err)
	}
	lockPath := filepath.Join(l.Dir, listLockName)
	if _, err := lockfile.CreateExclusive(lockPath, nil); err != nil {
		return fmt.Errorf("create task list lock: %w", err)
	}
	unlock, err := lockfile.Lock(ctx, lockPath, l.Lock)
	if err != nil {
		return fmt.Errorf("lock task list %s: %w", l.Dir, err)
	}
	ferr := fn()
	if err := unlock(); err != nil && ferr == nil {
		return fmt.Errorf("unlock task list %s: %w", l.Dir, err)
	}
	return ferr
}

// highestID is Claude Code's findHighestTaskId: the larger of the highest
// number among "*.json" file names (parsed like JavaScript's parseInt, so
// "12x.json" counts as 12) and the number in .highwatermark. The caller
// holds the list lock.
func (l *TaskList) highestID() (int64, error) {
	entries, err := os.ReadDir(l.Dir)
	if err != nil {
		return 0, fmt.Errorf("list tasks: %w", err)
	}
	highest := l.highWaterMark()
	for _, e := range entries {
		if base, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			if n, ok := leadingInt(base); ok && n > highest {
				highest = n
			}
		}
	}
	return highest, nil
}

func (l *TaskList) highWaterMark() int64 {
	b, err := safefs.ReadFile(filepath.Join(l.Dir, highWaterMarkName))
	if err != nil {
		return 0
	}
	n, _ := leadingInt(strings.TrimSpace(string(b)))
	return n
}

// raiseHighWaterMark records id as used. The caller holds the list lock.
func (l *TaskList) raiseHighWaterMark(id string) error {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= l.highWaterMark() {
		return nil
	}
	path := filepath.Join(l.Dir, highWaterMarkName)
	if err := lockfile.WriteAtomic(path, []byte(strconv.FormatInt(n, 10))); err != nil {
		return fmt.Errorf("record deleted task id: %w", err)
	}
	return nil
}

// leadingInt parses the decimal digits at the start of s, as parseInt(s, 10).
func leadingInt(s string) (int64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	return n, err == nil
}
