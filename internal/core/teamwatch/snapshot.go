// Package teamwatch is paneteam's one model of a team's state: a snapshot
// of its members, messages, tasks, waiting requests and locks, read from
// the files Claude Code and paneteam share, and the events between two
// snapshots (a member going idle, a message sent, a task claimed, ...).
// status, its tmux status line, the dashboard, monitor and wait all judge
// a member here: its State (idle, active, needs-you, gone), whether its
// pane or process is alive (one batched question per backend, through
// backend.Census), who runs it and which CLI, its unread messages and the requests it
// has waiting; and the lead's, with the note that a Claude Code lead reads
// its inbox late (LeadInbox). It only reads a team; nothing here writes
// to one. The one file it writes is a members-only snapshot's memo of
// what it counted, in paneteam's state folder (memo.go).
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

	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/internal/core/cost"
	"github.com/paneteam/paneteam/internal/core/panedialog"
	"github.com/paneteam/paneteam/internal/core/teamfind"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/internal/remote"
	"github.com/paneteam/paneteam/internal/sys/filesig"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// ErrTeamGone means the team's config.json is gone: the team was deleted.
var ErrTeamGone = errors.New("the team was deleted")

// waitingRequests counts, per teammate name, the permission, sandbox and
// plan requests waiting for the lead. It is a seam: the approval package
// provides the real count (with its record of answered requests). When
// leadRequests is set, the lead's inbox and archive were read already (or
// taken from the memo) and those are their entries that can be requests.
var waitingRequests func(t team.Team, cfg *team.Config, leadRequests *leadRequests) (map[string]int, error)

// archivedRequests reads the lead's archive's entries that can be
// requests (approval.ArchivedRequests).
var archivedRequests func(t team.Team) ([]mailbox.Message, error)

// leadRequests are the lead's inbox and archive entries that can be
// requests, as approval finds them.
type leadRequests struct {
	Inbox    []mailbox.Message `json:"inbox,omitempty"`
	Archived []mailbox.Message `json:"archived,omitempty"`
}

// Options tunes how snapshots are taken. The zero value is usable.
type Options struct {
	// Backend is where members' panes are asked about (Member.Pane): one
	// backend.Census per snapshot. Nil: panes are not checked and Pane
	// stays empty.
	Backend *backend.Env
	// Census, when set with Backend, is asked instead of a fresh one per
	// snapshot: one moment's snapshots of several teams (status) share it,
	// so each tmux server is asked once for all of them.
	Census *backend.Census
	// MembersOnly skips the tasks and locks, and keeps no Messages: what
	// status and its status line show needs the members alone, and their
	// inboxes are only counted, as streams (tally.go).
	MembersOnly bool
	// MemoDir, with MembersOnly, is a folder of paneteam's state where
	// what was counted of each inbox is kept for the next snapshot, so an
	// inbox that has not changed is not read again (memo.go). "": none.
	MemoDir string
	// NoBranches leaves Member.Branch empty: the status line, refreshed
	// every few seconds as a new process, shows no branch and need not
	// read paneteam's worktree records for one.
	NoBranches bool
	// NoResumable leaves Snapshot.Resumable nil: the status line shows
	// none, and need not read a dead team's launch records nor ask
	// whether their processes live on every refresh.
	NoResumable bool
	// BranchWork, with branches, sets Member.Work: what each member's
	// worktree holds and whether it lands cleanly (land.Review). It runs
	// git several times per worktree, so only 'paneteam status' (text
	// and --json) asks for it, never the status line or a watcher.
	BranchWork bool
	// LeadDir is the working tree whose branch BranchWork merges
	// against when it is of the worktree's repository (status's current
	// folder); else the repository's main working tree is.
	LeadDir string
	// Cost, when set, reads what each member has spent (Member.Usage)
	// and the team's total (Snapshot.Usage). Nil: none is read.
	Cost *cost.Reader
	// LockAge is how long a lock may be held before LockHeld reports it
	// (DefaultLockAge when zero).
	LockAge time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// DefaultLockAge: Claude Code's holders refresh a lock every 5 s and
// waiters break it at 10 s (docs/PROTOCOL.md §4); a write holds it for
// milliseconds, so one held 5 s is worth a look.
const DefaultLockAge = 5 * time.Second

// getenv reads the environment the backends were given (where the
// lead's records of remote teammates are), else the process's own.
func (o Options) getenv(k string) string {
	if o.Backend != nil && o.Backend.Getenv != nil {
		return o.Backend.Getenv(k)
	}
	return os.Getenv(k)
}

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
	// Lead is who leads the team and whether that process is alive
	// (team.LeadOf).
	Lead *team.Lead `json:"lead,omitempty"`
	// LeadInbox is set when a live Claude Code lead has messages waiting
	// that it will not read until it has a teammate of its own.
	LeadInbox *LeadInbox `json:"leadInbox,omitempty"`
	Members   []Member   `json:"members"`
	// Resumable is set when the team can come back with 'paneteam
	// resume' (its lead and every teammate's pane went away without a
	// shutdown); nil otherwise.
	Resumable *Resumable `json:"resumable,omitempty"`
	// Usage is the team's total spending (Options.Cost): the sums of the
	// members whose spending is known, Partial when some is not.
	Usage *cost.Cost `json:"usage,omitempty"`
	Tasks []Task     `json:"tasks"`
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

// Pane liveness (Member.Pane).
const (
	PaneAlive   = teamfind.PaneAlive
	PaneDead    = teamfind.PaneDead
	PaneUnknown = teamfind.PaneUnknown
)

// Member is one member of the team.
type Member struct {
	Name      string `json:"name"`
	AgentID   string `json:"agentId"`
	AgentType string `json:"agentType,omitempty"`
	Color     string `json:"color,omitempty"`
	Backend   string `json:"backend,omitempty"`
	// Host is the machine a teammate started with spawn-pane --host runs
	// on, from the lead's own record (never config.json, which the host
	// can write); "" for a local one.
	Host   string `json:"host,omitempty"`
	PaneID string `json:"paneId,omitempty"`
	// RunBy is who runs the member: lead, claude-in-process, claude-pane,
	// paneteam or unknown (team.Config.RunBy).
	RunBy string `json:"runBy"`
	// CLI is what the member runs: "claude" for Claude Code, an agent
	// profile's name ("codex", "gemini", "opencode", a person's own), ""
	// for a plain command (memberCLI). Runs says it for people.
	CLI string `json:"cli,omitempty"`
	// Branch is the branch of the member's own git worktree, "" when it
	// works in the lead's folder (branches).
	Branch string `json:"branch,omitempty"`
	// Work is what its worktree holds past its base and whether that
	// lands cleanly (Options.BranchWork); nil without a worktree, when
	// not asked, or when it holds nothing to land.
	Work  *BranchWork `json:"branchState,omitempty"`
	State State       `json:"state"`
	// Active is config.json's isActive (true when absent).
	Active bool `json:"active"`
	// Pane is alive, dead or unknown (PaneAlive, ...): the member's pane,
	// or for the lead and Claude Code's in-process teammates, the lead's
	// process. Empty when Options.Backend is nil; PaneError says why it
	// is unknown.
	Pane      string `json:"pane"`
	PaneError string `json:"paneError,omitempty"`
	// Unread counts its inbox's unread messages (-1: it could not be
	// read, InboxError says why).
	Unread     int    `json:"unread"`
	InboxError string `json:"inboxError,omitempty"`
	// Waiting counts its permission, sandbox and plan requests waiting
	// for the lead; above 0 it needs you.
	Waiting int `json:"waiting"`
	// Asks is set (asking.Reason) while an agent CLI teammate shows a
	// permission dialog in its own pane, as its hook reported; AsksAbout
	// is the CLI's own summary of it (the teammate's text). It needs you.
	Asks      string `json:"asks,omitempty"`
	AsksAbout string `json:"asksAbout,omitempty"`
	NeedsYou  bool   `json:"needsYou"`
	// Usage is what it has spent (Options.Cost): tokens and an estimated
	// cost, nil fields for what is unknown and why.
	Usage *cost.Cost `json:"usage,omitempty"`
	// Budget is its spending limit, what it spent against it and whether
	// it was warned or stopped over it (package budget); nil: none.
	Budget *budget.Status `json:"budget,omitempty"`
	// IdleBy is how its idle is known: "claude" (Claude Code's own),
	// "hook" (an agent CLI's turn-end hook, spawn-pane --agent), "quiet"
	// (guessed from quiet output), or "unknown".
	IdleBy string `json:"idleBy"`
	// LastIdle is the time of its latest idle_notification, IdleReason
	// and IdleSummary what it said.
	LastIdle    time.Time `json:"lastIdle,omitzero"`
	IdleReason  string    `json:"idleReason,omitempty"`
	IdleSummary string    `json:"idleSummary,omitempty"`

	// pid is the process of its live tmux pane (0: none known), whose
	// exit a watcher waits on (quiet.go).
	pid int
}

// Label is how people see a member: its name, and "@" and its host for
// a teammate on another machine (alice@buildbox).
func (m Member) Label() string { return At(m.Name, m.Host) }

// At is name, followed by "@" and host when host is set.
func At(name, host string) string {
	if host == "" {
		return name
	}
	return name + "@" + host
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

// TakeLoaded is Take of a team whose config.json was just loaded as cfg
// (status lists every team under a root, reading each config once).
func TakeLoaded(ctx context.Context, t team.Team, cfg *team.Config, opts Options) *Snapshot {
	return snapshotOf(ctx, t, cfg, opts, newMailReader(), nil)
}

func take(ctx context.Context, t team.Team, opts Options, mail *mailReader, prev *Snapshot) (*Snapshot, error) {
	cfg, err := mail.config(t.ConfigPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("team %s: %w", t.Name, ErrTeamGone)
	}
	if err != nil {
		return nil, err
	}
	return snapshotOf(ctx, t, cfg, opts, mail, prev), nil
}

func snapshotOf(ctx context.Context, t team.Team, cfg *team.Config, opts Options, mail *mailReader, prev *Snapshot) *Snapshot {
	s := &Snapshot{Team: t.Name, Description: cfg.Description, Taken: opts.now(), Members: []Member{}, Tasks: []Task{}, Locks: []Lock{}}
	if cfg.Paneteam != nil {
		s.Backend = cfg.Paneteam.Backend
	}
	lead := team.LeadOf(cfg)
	s.Lead = &lead
	for _, sk := range cfg.SkippedMembers() {
		s.problem(sk)
	}
	var unread map[string]inboxCount
	var mails tally
	var leadCount LeadInbox
	var leadRequests *leadRequests
	if opts.MembersOnly {
		unread, mails, leadCount, leadRequests = s.tallyMail(t, cfg, opts.MemoDir)
	} else {
		unread, leadRequests = s.readMessages(t, cfg, mail)
		mails, leadCount = s.tallyMessages(cfg)
	}
	waiting := map[string]int{}
	if waitingRequests != nil {
		p, err := waitingRequests(t, cfg, leadRequests)
		if err != nil {
			s.problem(fmt.Errorf("waiting requests: %w", err))
		} else {
			waiting = p
		}
	}
	var census *backend.Census
	if opts.Backend != nil {
		census = opts.Census
		if census == nil {
			census = backend.NewCensus(*opts.Backend)
		}
	}
	var branch map[string]worktree.Record
	var work map[string]*BranchWork
	if !opts.NoBranches {
		branch = branches(opts.getenv, t, cfg)
		if opts.BranchWork {
			work = branchWork(ctx, opts.LeadDir, branch)
		}
	}
	hostOf := remote.Hosts(opts.getenv, t.Root, filepath.Base(t.Dir()))
	for i := range cfg.Members {
		s.Members = append(s.Members, s.member(ctx, census, opts.Backend, t, cfg, &cfg.Members[i], unread, waiting, mails.of(cfg.Members[i].Name)))
		s.Members[i].Host = hostOf(cfg.Members[i].Name)
		s.Members[i].Branch = branch[cfg.Members[i].Name].Branch
		s.Members[i].Work = work[cfg.Members[i].Name]
	}
	s.budgets(opts, t)
	s.LeadInbox = leadInboxOf(s, cfg, leadCount)
	if !opts.NoResumable {
		s.Resumable = resumableOf(ctx, opts, census, t, cfg, s)
	}
	if opts.Cost != nil {
		s.costs(t, cfg, opts.Cost)
	}
	if !opts.MembersOnly {
		s.readTasks(t)
		s.readLocks(t, prev)
	}
	return s
}

func (s *Snapshot) problem(err error) { s.Problems = append(s.Problems, err.Error()) }

// inboxCount is one inbox's unread messages, or why they are unknown.
type inboxCount struct {
	n   int
	err error
}

// readMessages fills Messages and returns each inbox's unread count by
// file stem, and the lead's inbox and archive entries that can be
// requests (nil when the lead's inbox could not be read): approval is
// given those rather than reading both files again on every snapshot,
// which a watcher takes every second however quiet the team.
func (s *Snapshot) readMessages(t team.Team, cfg *team.Config, mail *mailReader) (map[string]inboxCount, *leadRequests) {
	unread := map[string]inboxCount{}
	leadReqs := &leadRequests{} // a lead without inbox or archive has none
	leadStem := team.SanitizePath(team.LeadName)
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
		inbox, archived, skipped, err := mail.read(filepath.Join(t.InboxDir(), stem+".json"), post.SummarisesIdle(cfg, to))
		if err != nil {
			s.problem(err)
			unread[stem] = inboxCount{n: -1, err: err}
		}
		for _, sk := range skipped {
			s.problem(sk)
		}
		if stem == leadStem {
			leadReqs = &leadRequests{Inbox: requestsAmong(inbox), Archived: requestsAmong(archived)}
			if err != nil {
				leadReqs = nil // approval reads both again, and says why it cannot
			}
		}
		for _, m := range archived {
			s.Messages = append(s.Messages, messageOf(to, m, true))
		}
		for _, m := range inbox {
			s.Messages = append(s.Messages, messageOf(to, m, false))
			if c := unread[stem]; !m.Read && c.err == nil {
				unread[stem] = inboxCount{n: c.n + 1}
			}
		}
	}
	sort.SliceStable(s.Messages, func(i, j int) bool { return s.Messages[i].Time.Before(s.Messages[j].Time) })
	return unread, leadReqs
}

// requestsAmong keeps the entries that can be requests, as approval.Find
// keeps them from the lead's inbox and archive.
func requestsAmong(msgs []mailbox.Message) []mailbox.Message {
	var out []mailbox.Message
	for _, m := range msgs {
		if isRequest(m.Text) {
			out = append(out, m)
		}
	}
	return out
}

func (s *Snapshot) member(ctx context.Context, census *backend.Census, env *backend.Env, t team.Team, cfg *team.Config, m *team.Member,
	unread map[string]inboxCount, waiting map[string]int, mail memberMail) Member {
	inbox := unread[team.SanitizePath(m.Name)]
	out := Member{Name: m.Name, AgentID: m.AgentID, AgentType: m.AgentType, Color: m.Color, Backend: m.BackendType,
		PaneID: m.TmuxPaneID, RunBy: cfg.RunBy(m), Active: m.Active(), Unread: inbox.n}
	out.IdleBy = idleBy(m, out.RunBy)
	out.CLI = memberCLI(*s.Lead, m, out.RunBy)
	if inbox.err != nil {
		out.InboxError = inbox.err.Error()
	}
	for name, n := range waiting {
		if strings.EqualFold(name, m.Name) {
			out.Waiting += n
		}
	}
	if census != nil {
		out.Pane, out.PaneError = liveness(ctx, census, env, cfg, *s.Lead, m, out.RunBy)
		if out.Pane == PaneAlive && byBackend(out.RunBy) {
			out.pid = census.PanePID(ctx, m)
		}
	}
	// Only an agent CLI's hook leaves the mark, and paneteam runs every
	// agent CLI: one failed open for each member it runs (its idle by the
	// hook is recorded only once its pane is; one Claude's lead started
	// through the router is Claude's, yet paneteam's to run), nothing for
	// the others.
	asks := 0
	if (out.IdleBy == team.IdleByHook || out.RunBy == team.RunByPaneteam || m.Routed()) && out.Pane != PaneDead {
		if mk, ok := panedialog.Read(t, m.Name); ok {
			out.Asks, out.AsksAbout, asks = panedialog.Reason, mk.About, 1
		}
	}
	out.NeedsYou = out.Waiting > 0 || asks > 0
	out.LastIdle, out.IdleReason, out.IdleSummary = mail.lastIdle, mail.idleReason, mail.idleSummary
	out.State = Decide(out.Pane, out.Waiting+asks, out.Active, out.LastIdle, mail.lastActivity)
	return out
}

// tallyMessages is tallyMail from the messages a snapshot keeps.
func (s *Snapshot) tallyMessages(cfg *team.Config) (tally, LeadInbox) {
	t := newTally(cfg)
	var lead LeadInbox
	for _, msg := range s.Messages {
		t.add(msg.From, msg.To, msg.Kind == mailbox.TypeIdle, msg.Time, msg.raw.Text)
		if !msg.Archived && !msg.Read && strings.EqualFold(msg.To, team.LeadName) {
			lead.count(msg.Time, s.Taken)
		}
	}
	return t, lead
}

// Decide is a member's state. A dead pane is gone; a request waiting for
// the lead, or a dialog in an agent CLI's pane (both counted in waiting),
// means it needs you (it is blocked on it). Otherwise its latest
// idle_notification (Claude Code sends one at the end of every turn,
// docs/PROTOCOL.md §8) says idle unless a message from or to it came
// later (it is working, or about to be woken by it). Without one (a
// Claude Code lead deletes them once delivered, docs/PROTOCOL.md §6),
// config.json's isActive decides, as paneteam status does.
func Decide(pane string, waiting int, active bool, lastIdle, lastActivity time.Time) State {
	switch {
	case pane == PaneDead:
		return StateGone
	case waiting > 0:
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
// docs/PROTOCOL.md §4) in the team, inbox and task folders.
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

// idleBy is how a member's idle is known (Member.IdleBy).
func idleBy(m *team.Member, runBy string) string {
	switch {
	case runBy == team.RunByClaudeInProcess || runBy == team.RunByClaudePane:
		return "claude"
	case m.Paneteam != nil && m.Paneteam.IdleBy == team.IdleByHook:
		return team.IdleByHook
	case runBy == team.RunByPaneteam:
		return "quiet"
	}
	return "unknown"
}
