package team

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
)

// Task statuses, as Claude Code writes them.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
)

// Statuses lists the valid task statuses in their natural order.
var Statuses = []string{StatusPending, StatusInProgress, StatusCompleted}

// ValidStatus reports whether s is one of Statuses.
func ValidStatus(s string) bool {
	for _, k := range Statuses {
		if k == s {
			return true
		}
	}
	return false
}

// Task is one <id>.json of a team's task list, in Claude Code's layout.
// The field order is Claude Code's task schema order, which is also the
// order its own rewrites produce; a file written in another order keeps
// its order, and fields paneteam does not know keep their place.
type Task struct {
	ID          string `json:"id"`
	Subject     string `json:"subject"`
	Description string `json:"description"`
	ActiveForm  string `json:"activeForm,omitempty"`
	// Owner is absent from the file (not null) while nobody has claimed
	// the task. Claude Code records a member's name here, or sometimes its
	// agent id (name@team).
	Owner  string `json:"owner,omitempty"`
	Status string `json:"status"`
	// Blocks lists the tasks waiting for this one; BlockedBy the tasks this
	// one waits for. Availability is computed from BlockedBy on every read.
	Blocks    []string        `json:"blocks"`
	BlockedBy []string        `json:"blockedBy"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`

	extra jsonx.Fields // keys paneteam does not know, and the order they were read in
}

func (t *Task) UnmarshalJSON(b []byte) error {
	type plain Task
	return jsonx.Unmarshal(b, (*plain)(t), &t.extra)
}

func (t Task) MarshalJSON() ([]byte, error) {
	type plain Task
	if t.Blocks == nil {
		t.Blocks = []string{}
	}
	if t.BlockedBy == nil {
		t.BlockedBy = []string{}
	}
	return jsonx.MarshalWith(plain(t), t.extra)
}

// Encode writes t exactly as Claude Code lays a task file out
// (JSON.stringify(task, null, 2): 2-space indent, no trailing newline).
func (t *Task) Encode() ([]byte, error) { return jsonx.MarshalIndent(t) }

// Internal reports whether Claude Code marks the task as its own
// teammate-tracking entry (metadata._internal: true).
func (t *Task) Internal() bool {
	var m struct {
		Internal bool `json:"_internal"`
	}
	return len(t.Metadata) > 0 && json.Unmarshal(t.Metadata, &m) == nil && m.Internal
}

// OwnedBy reports whether the task's owner is the member name, or that
// member's agent id in team teamName (Claude Code writes either).
func (t *Task) OwnedBy(name, teamName string) bool {
	if t.Owner == "" || name == "" {
		return false
	}
	return strings.EqualFold(t.Owner, name) || strings.EqualFold(t.Owner, AgentID(name, teamName))
}

// parseTask reads a task file's bytes and checks what Claude Code's schema
// requires, so a file Claude Code would reject is not acted on either.
func parseTask(b []byte, wantID string) (*Task, error) {
	var t Task
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, err
	}
	if t.ID != wantID {
		return nil, fmt.Errorf("its id %q does not match its file name", t.ID)
	}
	if !ValidStatus(t.Status) {
		return nil, fmt.Errorf("status %q is not one of %s", t.Status, strings.Join(Statuses, ", "))
	}
	return &t, nil
}

// TaskIDError is a task id that is not one: empty, or not all digits.
type TaskIDError struct{ ID string }

func (e *TaskIDError) Error() string {
	if e.ID == "" {
		return "task id is empty: give the number the task was created with"
	}
	return fmt.Sprintf("task id %q is not a number: task ids are digits only, like 3", e.ID)
}

// CheckTaskID refuses anything but a task id as Claude Code makes them
// (decimal digits): an id becomes a file name, so "../x" or "a/b" must
// never reach the file system.
func CheckTaskID(id string) error {
	if id == "" {
		return &TaskIDError{}
	}
	for i := 0; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return &TaskIDError{ID: id}
		}
	}
	return nil
}

// OpenBlockers returns the ids in t.BlockedBy that still block it: those
// whose task exists and is not completed. A blocker that no longer exists
// (it was deleted) does not block, as in Claude Code, whose claim checks
// only the unfinished tasks it can find and whose delete drops references
// to the deleted id.
func OpenBlockers(t *Task, byID map[string]*Task) []string {
	var open []string
	for _, id := range t.BlockedBy {
		if b, ok := byID[id]; ok && b.Status != StatusCompleted {
			open = append(open, id)
		}
	}
	return open
}

// Available reports whether t can be claimed now: pending, unowned, and
// with no open blocker.
func Available(t *Task, byID map[string]*Task) bool {
	return t.Status == StatusPending && t.Owner == "" && len(OpenBlockers(t, byID)) == 0
}
