package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/tasks"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// Team is the team as one member sees it through the tools. Every call
// reads the team's config again: a member removed meanwhile (shut down)
// can no longer act.
type Team struct {
	ID   Identity
	Lock lockfile.Options
	Now  func() time.Time
}

// errUser is a mistake in a tool call: the agent's model sees the message
// and can correct its call.
type errUser struct{ msg string }

func (e errUser) Error() string { return e.msg }

func userErr(format string, args ...any) error { return errUser{fmt.Sprintf(format, args...)} }

// config reloads the team's config and checks the member is still in it.
func (tm *Team) config() (*team.Config, error) {
	cfg, err := team.Load(tm.ID.Team.ConfigPath())
	if err != nil {
		return nil, fmt.Errorf("read team %s: %w", tm.ID.Team.Name, err)
	}
	if cfg.Member(tm.ID.Agent) == nil {
		return nil, fmt.Errorf("%s is no longer a member of team %s: it was shut down or removed", tm.ID.Agent, tm.ID.Team.Name)
	}
	return cfg, nil
}

func (tm *Team) now() time.Time {
	if tm.Now != nil {
		return tm.Now()
	}
	return time.Now()
}

// Status is what team_status reports.
type Status struct {
	Team    string         `json:"team"`
	You     string         `json:"you"`
	Lead    string         `json:"lead"`
	Members []MemberStatus `json:"members"`
	Tasks   TaskCounts     `json:"tasks"`
}

// MemberStatus is one member as team_status shows it.
type MemberStatus struct {
	Name      string `json:"name"`
	AgentType string `json:"agentType,omitempty"`
	Model     string `json:"model,omitempty"`
	Active    bool   `json:"active"`
	Cwd       string `json:"cwd,omitempty"`
}

// TaskCounts counts the team's tasks by status.
type TaskCounts struct {
	Pending    int `json:"pending"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
	Available  int `json:"available"`
	Yours      int `json:"yours"`
}

// Status is the team's members and a count of its tasks.
func (tm *Team) Status(context.Context) (Status, error) {
	cfg, err := tm.config()
	if err != nil {
		return Status{}, err
	}
	st := Status{Team: tm.ID.Team.Name, You: tm.ID.Agent, Lead: team.LeadName, Members: []MemberStatus{}}
	for _, m := range cfg.Members {
		st.Members = append(st.Members, MemberStatus{Name: m.Name, AgentType: m.AgentType, Model: m.Model, Active: m.Active(), Cwd: m.Cwd})
	}
	tasks, err := tm.tasks()
	if err != nil {
		return Status{}, err
	}
	byID := team.ByID(tasks)
	for _, t := range tasks {
		switch t.Status {
		case team.StatusPending:
			st.Tasks.Pending++
		case team.StatusInProgress:
			st.Tasks.InProgress++
		case team.StatusCompleted:
			st.Tasks.Completed++
		}
		if team.Available(t, byID) {
			st.Tasks.Available++
		}
		if t.OwnedBy(tm.ID.Agent, tm.ID.Team.Name) && t.Status != team.StatusCompleted {
			st.Tasks.Yours++
		}
	}
	return st, nil
}

// TaskView is one task as the tools show it.
type TaskView struct {
	ID          string   `json:"id"`
	Subject     string   `json:"subject"`
	Description string   `json:"description,omitempty"`
	Status      string   `json:"status"`
	Owner       string   `json:"owner,omitempty"`
	BlockedBy   []string `json:"blockedBy,omitempty"`
	Available   bool     `json:"available"`
	Note        string   `json:"note,omitempty"`
}

// TaskList is what list_tasks reports.
type TaskList struct {
	Tasks []TaskView `json:"tasks"`
}

// tasks is the team's task list without Claude Code's own bookkeeping
// entries.
func (tm *Team) tasks() ([]*team.Task, error) {
	all, _, err := tm.ID.Team.Tasks(tm.Lock).List()
	if err != nil {
		return nil, err
	}
	var out []*team.Task
	for _, t := range all {
		if !t.Internal() {
			out = append(out, t)
		}
	}
	return out, nil
}

// ListTasks lists the team's tasks in id order.
func (tm *Team) ListTasks(context.Context) (TaskList, error) {
	if _, err := tm.config(); err != nil {
		return TaskList{}, err
	}
	tasks, err := tm.tasks()
	if err != nil {
		return TaskList{}, err
	}
	byID := team.ByID(tasks)
	out := TaskList{Tasks: []TaskView{}}
	for _, t := range tasks {
		out.Tasks = append(out.Tasks, viewOf(t, byID))
	}
	return out, nil
}

func viewOf(t *team.Task, byID map[string]*team.Task) TaskView {
	v := TaskView{ID: t.ID, Subject: t.Subject, Description: t.Description, Status: t.Status, Owner: t.Owner,
		BlockedBy: team.OpenBlockers(t, byID), Available: team.Available(t, byID), Note: tasks.NoteOf(t)}
	return v
}

// TaskID is a task id as a tool takes it: a string, as in Claude Code's
// task files, or a number.
type TaskID string

func (id *TaskID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if err := checkSize("task_id", string(b), MaxFieldBytes, fixField); err != nil {
		return err
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = TaskID(strings.TrimSpace(s))
		return nil
	}
	n, err := strconv.ParseUint(string(b), 10, 63)
	if err != nil {
		return userErr("task_id %s is not a task id: give the id list_tasks shows, such as \"3\"", b)
	}
	*id = TaskID(strconv.FormatUint(n, 10))
	return nil
}

func (id TaskID) check() (string, error) {
	if err := team.CheckTaskID(string(id)); err != nil {
		return "", userErr("task_id %q is not a task id: give the id list_tasks shows, such as \"3\"", string(id))
	}
	return string(id), nil
}

// ClaimArgs are claim_task's arguments.
type ClaimArgs struct {
	TaskID TaskID `json:"task_id"`
}

// Claim makes the teammate the owner of a task and marks it in_progress,
// by the rules every front end shares (internal/core/tasks): it refuses a
// task someone else owns, a completed task and a task waiting for
// unfinished ones, and a new owner's task_assignment goes to itself, as
// Claude Code's does.
func (tm *Team) Claim(ctx context.Context, a ClaimArgs) (TaskView, error) {
	b, err := tm.board()
	if err != nil {
		return TaskView{}, err
	}
	id, err := a.TaskID.check()
	if err != nil {
		return TaskView{}, err
	}
	t, err := b.Claim(ctx, id, tm.ID.Agent)
	if err != nil && t == nil {
		return TaskView{}, taskErr(id, err)
	}
	v, verr := tm.view(t)
	if verr != nil {
		return TaskView{}, verr
	}
	return v, err
}

// board is the team's task list as this teammate acts on it. The
// teammate never signs: its caller's environment names it, not the lead.
func (tm *Team) board() (*tasks.Board, error) {
	cfg, err := tm.config()
	if err != nil {
		return nil, err
	}
	return &tasks.Board{Team: tm.ID.Team, Config: cfg, Lock: tm.Lock, By: tm.ID.Agent, Caller: tm.caller(), Now: tm.Now}, nil
}

// taskErr words a refused task operation for the agent's model: refusals
// are its to handle, so they are user errors.
func taskErr(id string, err error) error {
	var ce *team.ClaimError
	switch {
	case errors.As(err, &ce):
		switch ce.Reason {
		case team.ClaimOwned:
			return userErr("task %s is already claimed by %s: pick another (list_tasks shows which are available)", id, ce.Owner)
		case team.ClaimCompleted:
			return userErr("task %s is already completed: nothing to claim", id)
		default:
			return userErr("task %s is blocked by unfinished task(s) %s: claim it once they are completed, or pick another",
				id, strings.Join(ce.Blockers, ", "))
		}
	case errors.Is(err, team.ErrTaskNotFound):
		return userErr("there is no task %s: list_tasks shows the team's tasks", id)
	}
	return err
}

func (tm *Team) view(t *team.Task) (TaskView, error) {
	tasks, err := tm.tasks()
	if err != nil {
		return TaskView{}, err
	}
	return viewOf(t, team.ByID(tasks)), nil
}

// UpdateArgs are update_task's arguments.
type UpdateArgs struct {
	TaskID TaskID `json:"task_id"`
	Status string `json:"status,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Update sets a task's status and its note, by the rules every front end
// shares (internal/core/tasks): marking an unowned task in_progress makes
// the teammate its owner, and the task_assignment that change sends goes
// to the teammate itself, as Claude Code's does.
func (tm *Team) Update(ctx context.Context, a UpdateArgs) (TaskView, error) {
	b, err := tm.board()
	if err != nil {
		return TaskView{}, err
	}
	id, err := a.TaskID.check()
	if err != nil {
		return TaskView{}, err
	}
	if err := checkSize("status", a.Status, MaxFieldBytes, fixField); err != nil {
		return TaskView{}, err
	}
	if err := checkSize("note", a.Note, MaxTextBytes, fixNote); err != nil {
		return TaskView{}, err
	}
	if a.Status == "" && a.Note == "" {
		return TaskView{}, userErr("nothing to change: give status (%s) or note", strings.Join(team.Statuses, ", "))
	}
	if a.Status != "" && !team.ValidStatus(a.Status) {
		return TaskView{}, userErr("status %q is not a task status: use one of %s", a.Status, strings.Join(team.Statuses, ", "))
	}
	var c tasks.Change
	if a.Status != "" {
		c.Status = &a.Status
	}
	if a.Note != "" {
		c.Note = &a.Note
	}
	t, err := b.Update(ctx, id, c)
	if err != nil && t == nil {
		return TaskView{}, taskErr(id, err)
	}
	v, verr := tm.view(t)
	if verr != nil {
		return TaskView{}, verr
	}
	return v, err
}
