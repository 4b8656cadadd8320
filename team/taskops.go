package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/lockfile"
)

// Lock order, so no two paneteam operations wait for each other: the list
// lock first (create, delete, new dependencies), then task locks. Claude
// Code never holds both.

// NewTask describes a task to create.
type NewTask struct {
	Subject     string
	Description string
	ActiveForm  string
	Owner       string   // empty: unclaimed
	BlockedBy   []string // ids of existing tasks
	Metadata    json.RawMessage
}

// Create adds a task with the next free id, as Claude Code's createTask
// does: under the list lock, id = max(highest file number, .highwatermark)
// + 1. Each blocker's "blocks" gains the new id under that task's lock.
func (l *TaskList) Create(ctx context.Context, nt NewTask) (*Task, error) {
	if strings.TrimSpace(nt.Subject) == "" {
		return nil, errors.New("task subject is empty: give a short imperative line such as \"Write the parser tests\"")
	}
	blockers, err := checkIDs(nt.BlockedBy)
	if err != nil {
		return nil, err
	}
	status := StatusPending
	if nt.Owner != "" {
		status = StatusInProgress
	}
	t := &Task{Subject: nt.Subject, Description: nt.Description, ActiveForm: nt.ActiveForm,
		Owner: nt.Owner, Status: status, Blocks: []string{}, BlockedBy: blockers, Metadata: nt.Metadata}
	err = l.withListLock(ctx, func() error {
		for _, b := range blockers {
			if _, err := l.read(b); err != nil {
				return fmt.Errorf("blocker %s: %w", b, err)
			}
		}
		if err := l.writeNew(t); err != nil {
			return err
		}
		for _, b := range blockers {
			if err := l.addBlocks(ctx, b, t.ID); err != nil {
				return fmt.Errorf("task %s was created, but recording it in blocker %s failed: %w", t.ID, b, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// writeNew gives t the next id and writes its file. The file is created
// exclusively: should a writer that ignores the lock have taken that id,
// the next one is used and nothing is overwritten. The caller holds the
// list lock.
func (l *TaskList) writeNew(t *Task) error {
	highest, err := l.highestID()
	if err != nil {
		return err
	}
	for id := highest + 1; ; id++ {
		t.ID = strconv.FormatInt(id, 10)
		b, err := t.Encode()
		if err != nil {
			return err
		}
		created, err := lockfile.CreateExclusive(l.Path(t.ID), b)
		if err != nil {
			return fmt.Errorf("create task %s: %w", t.ID, err)
		}
		if created {
			return nil
		}
	}
}

func (l *TaskList) addBlocks(ctx context.Context, blocker, id string) error {
	_, err := l.Update(ctx, blocker, func(b *Task) error {
		if contains(b.Blocks, id) {
			return ErrNoChange
		}
		b.Blocks = append(b.Blocks, id)
		return nil
	})
	return err
}

// AddBlockedBy makes task id wait for the given tasks too. It refuses a
// blocker that does not exist, the task itself, and a dependency cycle
// (which no one could ever finish).
func (l *TaskList) AddBlockedBy(ctx context.Context, id string, blockers []string) (*Task, error) {
	if err := CheckTaskID(id); err != nil {
		return nil, err
	}
	blockers, err := checkIDs(blockers)
	if err != nil {
		return nil, err
	}
	var out *Task
	err = l.withListLock(ctx, func() error {
		tasks, _, err := l.List()
		if err != nil {
			return err
		}
		byID := ByID(tasks)
		if byID[id] == nil {
			return fmt.Errorf("task %s: %w", id, ErrTaskNotFound)
		}
		for _, b := range blockers {
			if byID[b] == nil {
				return fmt.Errorf("blocker %s: %w", b, ErrTaskNotFound)
			}
			if b == id || dependsOn(byID, b, id) {
				return fmt.Errorf("task %s cannot wait for task %s: %s already waits for %s, so neither could ever start", id, b, b, id)
			}
		}
		out, err = l.Update(ctx, id, func(t *Task) error {
			n := len(t.BlockedBy)
			for _, b := range blockers {
				if !contains(t.BlockedBy, b) {
					t.BlockedBy = append(t.BlockedBy, b)
				}
			}
			if len(t.BlockedBy) == n {
				return ErrNoChange
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, b := range blockers {
			if err := l.addBlocks(ctx, b, id); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// dependsOn reports whether task from waits, directly or not, for task to.
func dependsOn(byID map[string]*Task, from, to string) bool {
	seen := map[string]bool{}
	stack := []string{from}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cur == to {
			return true
		}
		if seen[cur] || byID[cur] == nil {
			continue
		}
		seen[cur] = true
		stack = append(stack, byID[cur].BlockedBy...)
	}
	return false
}

// Delete unlinks task id, first raising .highwatermark so the id is never
// handed out again. It holds the list lock (ids) and the task's lock (so
// no update in flight writes the file back). References to the id in other
// tasks stay: a deleted blocker no longer blocks (see OpenBlockers).
func (l *TaskList) Delete(ctx context.Context, id string) error {
	if err := CheckTaskID(id); err != nil {
		return err
	}
	return l.withListLock(ctx, func() error {
		path := l.Path(id)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("task %s: %w", id, ErrTaskNotFound)
		}
		if err := l.raiseHighWaterMark(id); err != nil {
			return err
		}
		unlock, err := lockfile.Lock(ctx, path, l.Lock)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("task %s: %w", id, ErrTaskNotFound)
		}
		if err != nil {
			return fmt.Errorf("delete task %s: %w", id, err)
		}
		rerr := os.Remove(path)
		if err := unlock(); err != nil && rerr == nil {
			rerr = err
		}
		if rerr != nil {
			return fmt.Errorf("delete task %s: %w", id, rerr)
		}
		return nil
	})
}

func checkIDs(ids []string) ([]string, error) {
	out := []string{}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if err := CheckTaskID(id); err != nil {
			return nil, err
		}
		if !contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
