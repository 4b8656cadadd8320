// Package teamwatch tells what is happening in a team: a snapshot of its
// members, messages, tasks, waiting requests and locks, read from the
// files Claude Code and paneteam share, and the events between two
// snapshots (a member going idle, a message sent, a task claimed, ...).
// It only reads; nothing here writes to a team.
package teamwatch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/sys/filesig"

	"github.com/paneteam/paneteam/internal/protocol/leadinbox"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// ErrTeamGone means the team's config.json is gone: the team was deleted.
var ErrTeamGone = errors.New("the team was deleted")

// pendingRequests counts, per teammate name, the permission, sandbox and
// plan requests waiting for the lead. It is a seam: the approval package
// provides the real count (with its record of answered requests).
var pendingRequests func(root, team string) (map[string]int, error)

// Options tunes how snapshots are taken. The zero value is usable.
type Options struct {
	// Liveness reports whether a member's pane exists ("alive", "dead" or
	// "unknown", and why it is unknown). Nil: panes are not checked and
	// Pane stays empty.
	Liveness func(ctx context.Context, cfg *team.Config, m *team.Member) (pane, why string)
	// LockAge is how long a lock may be held before LockHeld reports it
	// (DefaultLockAge when zero).
	LockAge time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// DefaultLockAge: Claude Code's holders refresh a lock every 5 s and
// waiters break it at 10 s (PROTOCOL.md, The lock); a write holds it for
// milliseconds, so one held 5 s is worth a look.
const DefaultLockAge = 5 * time.Second

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) lockAge() time.Duration {
	if o.LockAge > 0 {
		return o.LockAge
	}
	return DefaultLockAge
}

// Snapshot is a team at one moment.
type Snapshot struct {
	Team        string    `json:"team"`
	Description string    `json:"description,omitempty"`
	Backend     string    `json:"backend,omitempty"`
	Taken       time.Time `json:"taken"`
	Members     []Member  `json:"members"`
	Tasks       []Task    `json:"tasks"`
	// Locks are the lock directories present (held) in the team's folders.
	Locks []Lock `json:"locks"`
	// Messages holds every message in the team's inboxes and archives,
	// oldest first, so that two snapshots tell which are new.
	Messages []Message `json:"-"`
	// Problems are what could not be read this time (an inbox that does
	// not parse, ...); the rest of the snapshot is still right.
	Problems []string `json:"problems,omitempty"`
}

// State is what a member is doing, as a person leading it cares.
type State string

const (
	StateActive   State = "active"
	StateIdle     State = "idle"
	StateNeedsYou State = "needs-you"
	// StateGone: its pane is dead, or it left the team.
	StateGone State = "gone"
)

// Member is one member of the team.
type Member struct {
	Name      string `json:"name"`
	AgentID   string `json:"agentId"`
	AgentType string `json:"agentType,omitempty"`
	Color     string `json:"color,omitempty"`
	Backend   string `json:"backend,omitempty"`
	PaneID    string `json:"paneId,omitempty"`
	State     State  `json:"state"`
	// Active is config.json's isActive (true when absent).
	Active    bool   `json:"active"`
	Pane      string `json:"pane,omitempty"`
	PaneError string `json:"paneError,omitempty"`
	// Unread counts its inbox's unread messages (-1: it could not be read).
	Unread int `json:"unread"`
	// Pending counts its requests waiting for the lead.
	Pending int `json:"pending"`
	// LastIdle is the time of its latest idle_notification, IdleReason
	// and IdleSummary what it said.
	LastIdle    time.Time `json:"lastIdle,omitzero"`
	IdleReason  string    `json:"idleReason,omitempty"`
	IdleSummary string    `json:"idleSummary,omitempty"`
}

// Task is one task of the team's list.
type Task struct {
	ID        string   `json:"id"`
	Subject   string   `json:"subject"`
	Status    string   `json:"status"`
	Owner     string   `json:"owner,omitempty"`
	Blocks    []string `json:"blocks"`
	BlockedBy []string `json:"blockedBy"`
	// OpenBlockers are the BlockedBy tasks not completed yet.
	OpenBlockers []string `json:"openBlockers"`
}

// Lock is a lock directory in the team's folders.
type Lock struct {
	// Path is relative to the root.
	Path string `json:"path"`
	// Since is when it was first seen held (its mtime, or the first
	// snapshot that saw it: its holder refreshes the mtime every 5 s).
	Since time.Time `json:"since"`
	ino   uint64
}

// Member returns the named member (case-insensitive), or nil.
func (s *Snapshot) Member(name string) *Member {
	for i := range s.Members {
		if strings.EqualFold(s.Members[i].Name, name) {
			return &s.Members[i]
		}
	}
	return nil
}

// Take reads the team once.
func Take(ctx context.Context, t team.Team, opts Options) (*Snapshot, error) {
	return take(ctx, t, opts, newMailReader(), nil)
}

func take(ctx context.Context, t team.Team, opts Options, mail *mailReader, prev *Snapshot) (*Snapshot, error) {
	cfg, err := team.Load(t.ConfigPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("team %s: %w", t.Name, ErrTeamGone)
	}
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Team: t.Name, Description: cfg.Description, Taken: opts.now(), Members: []Member{}, Tasks: []Task{}, Locks: []Lock{}}
	if cfg.Paneteam != nil {
		s.Backend = cfg.Paneteam.Backend
	}
	unread := s.readMessages(t, cfg, mail)
	pending := map[string]int{}
	if pendingRequests != nil {
		p, err := pendingRequests(t.Root, t.Name)
		if err != nil {
			s.problem(fmt.Errorf("waiting requests: %w", err))
		} else {
			pending = p
		}
	}
	for i := range cfg.Members {
		s.Members = append(s.Members, s.member(ctx, opts, cfg, &cfg.Members[i], unread, pending))
	}
	s.readTasks(t)
	s.readLocks(t, prev)
	return s, nil
}

func (s *Snapshot) problem(err error) { s.Problems = append(s.Problems, err.Error()) }

// readMessages fills Messages and returns each inbox's unread count by
// file stem (-1: unreadable).
func (s *Snapshot) readMessages(t team.Team, cfg *team.Config, mail *mailReader) map[string]int {
	unread := map[string]int{}
	stems, err := inboxFiles(t.InboxDir())
	if err != nil {
		s.problem(err)
	}
	names := map[string]string{}
	for _, m := range cfg.Members {
		names[team.SanitizePath(m.Name)] = m.Name
	}
	for _, stem := range stems {
		to := names[stem]
		if to == "" {
			to = stem
		}
		inbox, archived, err := mail.read(filepath.Join(t.InboxDir(), stem+".json"), leadinbox.Summarises(cfg, to))
		if err != nil {
			s.problem(err)
			unread[stem] = -1
		}
		for _, m := range archived {
			s.Messages = append(s.Messages, messageOf(to, m, true))
		}
		for _, m := range inbox {
			s.Messages = append(s.Messages, messageOf(to, m, false))
			if !m.Read && unread[stem] >= 0 {
				unread[stem]++
			}
		}
	}
	sort.SliceStable(s.Messages, func(i, j int) bool { return s.Messages[i].Time.Before(s.Messages[j].Time) })
	return unread
}

func (s *Snapshot) member(ctx context.Context, opts Options, cfg *team.Config, m *team.Member, unread, pending map[string]int) Member {
	out := Member{Name: m.Name, AgentID: m.AgentID, AgentType: m.AgentType, Color: m.Color, Backend: m.BackendType,
		PaneID: m.TmuxPaneID, Active: m.Active(), Unread: unread[team.SanitizePath(m.Name)]}
	for name, n := range pending {
		if strings.EqualFold(name, m.Name) {
			out.Pending += n
		}
	}
	if opts.Liveness != nil {
		out.Pane, out.PaneError = opts.Liveness(ctx, cfg, m)
	}
	var lastActivity time.Time
	for _, msg := range s.Messages {
		from, to := strings.EqualFold(msg.From, m.Name), strings.EqualFold(msg.To, m.Name)
		switch {
		case from && msg.Kind == mailbox.TypeIdle:
			if !msg.Time.Before(out.LastIdle) {
				out.LastIdle = msg.Time
				out.IdleReason, out.IdleSummary = idleDetails(msg)
			}
		case from || to:
			if msg.Time.After(lastActivity) {
				lastActivity = msg.Time
			}
		}
	}
	out.State = Decide(out.Pane, out.Pending, out.Active, out.LastIdle, lastActivity)
	return out
}

func idleDetails(msg Message) (reason, summary string) {
	if p, ok := mailbox.Parse(msg.raw.Text); ok {
		if v, ok := p.Value.(*mailbox.IdleNotification); ok {
			return v.IdleReason, v.Summary
		}
	}
	return "", ""
}

// Decide is a member's state. A dead pane is gone; a request waiting for
// the lead means it needs you (it is blocked on it). Otherwise its latest
// idle_notification (Claude Code sends one at the end of every turn,
// PROTOCOL-2.1.330.md §6) says idle unless a message from or to it came
// later (it is working, or about to be woken by it). Without one (a
// Claude Code lead deletes them once delivered, PROTOCOL-2.1.330.md §3),
// config.json's isActive decides, as paneteam status does.
func Decide(pane string, pending int, active bool, lastIdle, lastActivity time.Time) State {
	switch {
	case pane == "dead":
		return StateGone
	case pending > 0:
		return StateNeedsYou
	case !lastIdle.IsZero() && lastActivity.After(lastIdle):
		return StateActive
	case !lastIdle.IsZero():
		return StateIdle
	case active:
		return StateActive
	}
	return StateIdle
}

func (s *Snapshot) readTasks(t team.Team) {
	tasks, skipped, err := t.Tasks(lockfile.Options{}).List()
	if err != nil {
		s.problem(err)
		return
	}
	for _, sk := range skipped {
		s.problem(sk)
	}
	byID := team.ByID(tasks)
	for _, tk := range tasks {
		if tk.Internal() {
			continue // Claude Code's teammate-tracking entries are not work
		}
		s.Tasks = append(s.Tasks, Task{ID: tk.ID, Subject: tk.Subject, Status: tk.Status, Owner: tk.Owner,
			Blocks: nonNil(tk.Blocks), BlockedBy: nonNil(tk.BlockedBy), OpenBlockers: nonNil(team.OpenBlockers(tk, byID))})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// readLocks lists the lock directories (proper-lockfile's "<file>.lock",
// PROTOCOL.md, The lock) in the team, inbox and task folders.
func (s *Snapshot) readLocks(t team.Team, prev *Snapshot) {
	old := map[string]Lock{}
	if prev != nil {
		for _, l := range prev.Locks {
			old[l.Path] = l
		}
	}
	for _, dir := range uniqueDirs(t.Dir(), t.InboxDir(), t.TasksDir()) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() || !strings.HasSuffix(e.Name(), ".lock") {
				continue
			}
			st, err := os.Stat(filepath.Join(dir, e.Name()))
			if err != nil {
				continue // released meanwhile
			}
			rel, err := filepath.Rel(t.Root, filepath.Join(dir, e.Name()))
			if err != nil {
				rel = filepath.Join(dir, e.Name())
			}
			l := Lock{Path: rel, Since: st.ModTime(), ino: filesig.Inode(st)}
			if o, ok := old[rel]; ok && o.ino == l.ino && o.Since.Before(l.Since) {
				l.Since = o.Since
			}
			s.Locks = append(s.Locks, l)
		}
	}
}

func uniqueDirs(dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		dup := false
		for _, o := range out {
			dup = dup || o == d
		}
		if !dup {
			out = append(out, d)
		}
	}
	return out
}
