package teamwatch

import (
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/internal/term/visible"
)

// Event kinds.
const (
	KindJoined          = "member-joined"
	KindLeft            = "member-left"
	KindIdle            = "member-idle"
	KindActive          = "member-active"
	KindNeedsYou        = "member-needs-you"
	KindGone            = "member-gone"
	KindMessage         = "message"
	KindTaskCreated     = "task-created"
	KindTaskClaimed     = "task-claimed"
	KindTaskCompleted   = "task-completed"
	KindTaskUnblocked   = "task-unblocked"
	KindTaskDeleted     = "task-deleted"
	KindRequestWaiting  = "request-waiting"
	KindRequestAnswered = "request-answered"
	KindLockHeld        = "lock-held"
	KindTeamDeleted     = "team-deleted"
	// KindSpent: a member's estimated cost passed a threshold the watcher
	// was given (monitor --spent).
	KindSpent = "member-spent"
	// KindBudget: a member's budget went from ok to warned (80% spent)
	// or to stopped (spent: its teammate was stopped).
	KindBudget = "member-budget"
)

// Event is one change between two snapshots. Who is the member it is
// about (a message's sender); the other fields are set where they apply.
// Text fields hold what teammates wrote, as they wrote it: show them
// through Visible.
type Event struct {
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	Team string    `json:"team"`
	Who  string    `json:"who,omitempty"`
	// Host is the machine Who runs on when it is a teammate started with
	// spawn-pane --host ("" for a local one).
	Host string `json:"host,omitempty"`
	// State is a member's new state.
	State State `json:"state,omitempty"`
	// CLI is what a member that joined runs (Member.CLI), Runs how people
	// read it ("codex (paneteam)").
	CLI  string `json:"cli,omitempty"`
	Runs string `json:"-"`
	// To, MessageKind and Summary describe a message.
	To          string `json:"to,omitempty"`
	MessageKind string `json:"type,omitempty"`
	Summary     string `json:"summary,omitempty"`
	// Task, Subject and Owner describe a task.
	Task    string `json:"task,omitempty"`
	Subject string `json:"subject,omitempty"`
	Owner   string `json:"owner,omitempty"`
	// Waiting counts a member's waiting requests (JSON "pending", as
	// monitor --json has always written it).
	Waiting *int `json:"pending,omitempty"`
	// Lock is a lock directory (relative to the root), HeldFor how long.
	Lock    string  `json:"lock,omitempty"`
	HeldFor Seconds `json:"heldForSeconds,omitempty"`
	// CostUSD is a member's estimated cost so far, ThresholdUSD the
	// threshold it passed (KindSpent).
	CostUSD      *float64 `json:"costUSD,omitempty"`
	ThresholdUSD float64  `json:"thresholdUSD,omitempty"`
}

// WhoLabel is Who as people see it: alice@buildbox for a teammate on
// another machine.
func (e Event) WhoLabel() string { return At(e.Who, e.Host) }

// Seconds is a duration written as seconds in JSON.
type Seconds float64

// What says what happened, for people, in one line: every text a teammate
// wrote in it (summaries, subjects, names) made visible (visible.Line).
func (e Event) What() string {
	v := visible.Line
	switch e.Kind {
	case KindJoined:
		return "joined the team" + oneOf(e.CLI != "", ", runs "+v(e.Runs))
	case KindLeft:
		return "left the team"
	case KindIdle, KindActive:
		return "is " + string(e.State) + oneOf(e.Summary != "", ": "+v(e.Summary))
	case KindNeedsYou:
		return "needs you: a request waits for the lead"
	case KindGone:
		return "is gone: its pane is dead"
	case KindMessage:
		return "to " + v(e.To) + " [" + v(e.MessageKind) + "]" + oneOf(e.Summary != "", " "+v(e.Summary))
	case KindTaskCreated:
		return "task " + v(e.Task) + " created: " + v(e.Subject)
	case KindTaskClaimed:
		return "task " + v(e.Task) + " claimed by " + v(e.Owner) + ": " + v(e.Subject)
	case KindTaskCompleted:
		return "task " + v(e.Task) + " completed" + oneOf(e.Owner != "", " by "+v(e.Owner)) + ": " + v(e.Subject)
	case KindTaskUnblocked:
		return "task " + v(e.Task) + " unblocked (its blockers completed): " + v(e.Subject)
	case KindTaskDeleted:
		return "task " + v(e.Task) + " deleted: " + v(e.Subject)
	case KindRequestWaiting:
		return fmt.Sprintf("asks the lead: %d request(s) waiting", waitingOf(e))
	case KindRequestAnswered:
		return fmt.Sprintf("request answered, %d still waiting", waitingOf(e))
	case KindLockHeld:
		return fmt.Sprintf("lock %s held for %.0fs", v(e.Lock), float64(e.HeldFor))
	case KindTeamDeleted:
		return "team " + v(e.Team) + " was deleted"
	case KindBudget:
		spent := "?"
		if e.CostUSD != nil {
			spent = fmt.Sprintf("$%.2f", *e.CostUSD)
		}
		if e.Summary == budget.Stopped {
			return fmt.Sprintf("stopped over budget: %s spent of $%.2f", spent, e.ThresholdUSD)
		}
		return fmt.Sprintf("budget warning: %s spent of $%.2f", spent, e.ThresholdUSD)
	case KindSpent:
		if e.CostUSD == nil {
			return fmt.Sprintf("spent over $%.2f", e.ThresholdUSD)
		}
		return fmt.Sprintf("spent over $%.2f: $%.2f so far", e.ThresholdUSD, *e.CostUSD)
	}
	return v(e.Kind)
}

func waitingOf(e Event) int {
	if e.Waiting == nil {
		return 0
	}
	return *e.Waiting
}

func oneOf(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

// Diff lists what changed from old to cur, in a stable order: messages
// (oldest first, so the message that caused a change comes before it),
// members and their requests, tasks, locks. Messages already in old
// are not reported, wherever they moved (inbox or archive); messages that
// vanished (delivered and deleted by Claude Code, docs/PROTOCOL.md §6)
// are not events.
func Diff(old, cur *Snapshot, lockAge time.Duration) []Event {
	if lockAge <= 0 {
		lockAge = DefaultLockAge
	}
	d := differ{old: old, cur: cur}
	d.messages()
	d.members()
	d.tasks()
	d.locks(lockAge)
	return d.out
}

type differ struct {
	old, cur *Snapshot
	out      []Event
}

func (d *differ) add(e Event) {
	e.Time, e.Team = d.cur.Taken, d.cur.Team
	d.out = append(d.out, e)
}

func (d *differ) members() {
	for _, m := range d.cur.Members {
		o := d.old.Member(m.Name)
		if o == nil {
			d.add(Event{Kind: KindJoined, Who: m.Name, Host: m.Host, State: m.State, CLI: m.CLI, Runs: m.Runs()})
			continue
		}
		if m.Waiting > o.Waiting {
			d.add(Event{Kind: KindRequestWaiting, Who: m.Name, Host: m.Host, Waiting: intp(m.Waiting)})
		} else if m.Waiting < o.Waiting {
			d.add(Event{Kind: KindRequestAnswered, Who: m.Name, Host: m.Host, Waiting: intp(m.Waiting)})
		}
		if m.Budget != nil && m.Budget.State != budget.OK && (o.Budget == nil || o.Budget.State != m.Budget.State) {
			d.add(Event{Kind: KindBudget, Who: m.Name, Host: m.Host, CostUSD: m.Budget.SpentUSD, ThresholdUSD: m.Budget.USD, Summary: m.Budget.State})
		}
		if m.State != o.State {
			e := Event{Kind: stateKind(m.State), Who: m.Name, Host: m.Host, State: m.State}
			if m.State == StateIdle && m.LastIdle != o.LastIdle {
				e.Summary = strings.TrimSpace(m.IdleReason + oneOf(m.IdleReason != "" && m.IdleSummary != "", ": ") + m.IdleSummary)
			}
			d.add(e)
		}
	}
	for _, o := range d.old.Members {
		if d.cur.Member(o.Name) == nil {
			d.add(Event{Kind: KindLeft, Who: o.Name, Host: o.Host, State: StateGone})
		}
	}
}

func intp(n int) *int { return &n }

func stateKind(s State) string {
	switch s {
	case StateIdle:
		return KindIdle
	case StateNeedsYou:
		return KindNeedsYou
	case StateGone:
		return KindGone
	}
	return KindActive
}

func (d *differ) messages() {
	seen := make(map[MessageID]int, len(d.old.Messages))
	for _, m := range d.old.Messages {
		seen[m.ID]++
	}
	for _, m := range d.cur.Messages {
		if seen[m.ID] > 0 {
			seen[m.ID]--
			continue
		}
		e := Event{Kind: KindMessage, Who: m.From, To: m.To, MessageKind: m.Kind, Summary: m.Summary}
		if from := d.cur.Member(m.From); from != nil {
			e.Host = from.Host
		}
		d.add(e)
	}
}

func (d *differ) tasks() {
	old := map[string]Task{}
	for _, t := range d.old.Tasks {
		old[t.ID] = t
	}
	for _, t := range d.cur.Tasks {
		o, ok := old[t.ID]
		delete(old, t.ID)
		if !ok {
			d.add(Event{Kind: KindTaskCreated, Task: t.ID, Subject: t.Subject, Owner: t.Owner})
			if t.Status == "completed" {
				d.add(Event{Kind: KindTaskCompleted, Who: t.Owner, Task: t.ID, Subject: t.Subject, Owner: t.Owner})
			}
			continue
		}
		if t.Owner != "" && !strings.EqualFold(t.Owner, o.Owner) {
			d.add(Event{Kind: KindTaskClaimed, Who: t.Owner, Task: t.ID, Subject: t.Subject, Owner: t.Owner})
		}
		if t.Status == "completed" && o.Status != "completed" {
			d.add(Event{Kind: KindTaskCompleted, Who: t.Owner, Task: t.ID, Subject: t.Subject, Owner: t.Owner})
		}
		if t.Status != "completed" && len(o.OpenBlockers) > 0 && len(t.OpenBlockers) == 0 {
			d.add(Event{Kind: KindTaskUnblocked, Task: t.ID, Subject: t.Subject, Owner: t.Owner})
		}
	}
	for _, o := range d.old.Tasks {
		if _, gone := old[o.ID]; gone {
			d.add(Event{Kind: KindTaskDeleted, Task: o.ID, Subject: o.Subject})
		}
	}
}

func (d *differ) locks(lockAge time.Duration) {
	old := map[string]Lock{}
	for _, l := range d.old.Locks {
		old[l.Path] = l
	}
	for _, l := range d.cur.Locks {
		held := d.cur.Taken.Sub(l.Since)
		if held < lockAge {
			continue
		}
		if o, ok := old[l.Path]; ok && o.ino == l.ino && d.old.Taken.Sub(o.Since) >= lockAge {
			continue // reported already
		}
		d.add(Event{Kind: KindLockHeld, Lock: l.Path, HeldFor: Seconds(held.Round(time.Second).Seconds())})
	}
}
