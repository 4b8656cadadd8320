// Package dashboard is paneteam's full-screen live view of a team, for a
// terminal or a tmux popup: members and their state, tasks and what blocks
// what, and the permission, sandbox and plan requests waiting for the lead
// (Claude Code, docs/PROTOCOL.md §8-§9), with keys to answer
// them, message, hide, stop and jump to teammates. Its requests mode
// shows one waiting request at a time for single-key answers; its review
// view (work.go) the teammates' work to land, a teammate's diff to
// comment on line by line, and a land after a confirmation, through the
// operations 'paneteam review' and 'paneteam land' use (internal/core/land).
//
// Everything a teammate wrote goes through paneteam's one visible-text
// rule (visible.Line, visible.Block) before it reaches the screen: an
// escape sequence in a command or a plan must never repaint what the
// person approves.
//
// It runs on Bubble Tea v2 (charm.land/bubbletea/v2), whose cell
// renderer compares each frame with the screen it drew, so a resize or
// zoom by tmux leaves no stale row (0.27 needed every frame padded to the
// window for that). Its package initialisation builds tables and asks the
// terminal nothing (1.x asked for the background colour, through Lip
// Gloss); it is linked only by cmd/paneteam-dashboard, never by paneteam
// (cmd/paneteam's TestNoBubbleTea). Styles are eight SGR sequences of our
// own (style.go).
package dashboard

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/visible"
)

type section int

const (
	secMembers section = iota
	secTasks
	secRequests
	nSections
)

type mode int

const (
	modeList mode = iota
	modeDetail
	modeInput
	modeConfirm
	modeHelp
	// modeWork lists the teammates with work to land (work.go); modeDiff
	// shows one's diff.
	modeWork
	modeDiff
)

// purpose of a text input.
type purpose int

const (
	inputMessage purpose = iota
	inputDeny
	inputComment
)

// Messages the model receives besides keys and sizes.
type (
	// dataMsg is a fresh reading of the team.
	dataMsg struct {
		snap *teamwatch.Snapshot
		reqs []approval.Request
		err  error
	}
	// tickMsg redraws, so that ages move on while nothing changes.
	tickMsg struct{}
	// doneMsg is the outcome of an action.
	doneMsg struct {
		status string
		err    error
		quit   bool
	}
)

// Options configure a Model.
type Options struct {
	Team string
	// Review shows one waiting request at a time (the prefix+P popup).
	Review bool
	// Color allows colour and attributes; false writes none at all.
	Color bool
	// QuitAfterJump ends the dashboard once it has selected a pane: in a
	// tmux popup the popup would otherwise hide the pane jumped to.
	QuitAfterJump bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Model is the dashboard's state. Build it with New.
type Model struct {
	opts Options
	acts Actions
	st   styles
	ctx  context.Context

	w, h int
	snap *teamwatch.Snapshot
	reqs []approval.Request

	focus section
	// Selections are kept by key, so a refresh keeps the same row chosen.
	selMember, selTask, selReq string
	// shown is the request (reqKey) the detail or review view last drew
	// whole: only that one may be answered (keys.go).
	shown string

	mode     mode
	detail   section // what the detail view shows
	scroll   int
	input    []rune
	inputFor purpose
	target   string           // member of an input or confirmation
	targetR  approval.Request // request of a deny input
	// work is the review view's state (work.go).
	work workView

	status   string
	isErr    bool
	busy     bool
	gone     string
	quitting bool
	// Final is printed after the terminal is restored (why it ended).
	Final string
}

// New returns a dashboard acting through acts.
func New(ctx context.Context, acts Actions, opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Model{opts: opts, acts: acts, st: newStyles(opts.Color), ctx: ctx, w: 80, h: 24}
	if opts.Review {
		m.mode, m.detail, m.focus = modeDetail, secRequests, secRequests
	}
	return m
}

// ageTick is how often ages are redrawn when nothing else changes; it
// reads nothing.
const ageTick = 5 * time.Second

// Init reads the team once; the watcher feeds the rest.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.refresh(), tick()) }

func tick() tea.Cmd {
	return tea.Tick(ageTick, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *Model) refresh() tea.Cmd {
	return func() tea.Msg {
		s, r, err := m.acts.Refresh(m.ctx)
		return dataMsg{s, r, err}
	}
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		return m, nil
	case tickMsg:
		return m, tick()
	case dataMsg:
		return m, m.data(msg)
	case workMsg, diffMsg, landMsg:
		return m, m.workUpdate(msg)
	case doneMsg:
		m.busy = false
		m.setStatus(msg.status, msg.err)
		if msg.quit && msg.err == nil {
			m.quitting = true
			return m, tea.Quit
		}
		return m, m.refresh()
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		// Bubble Tea v2 turns on bracketed paste and hands a paste over
		// whole, not as key presses: into the input if one is open.
		if m.mode == modeInput {
			m.typed(msg.Content)
		}
		return m, nil
	}
	return m, nil
}

func (m *Model) data(msg dataMsg) tea.Cmd {
	if errors.Is(msg.err, teamwatch.ErrTeamGone) {
		m.gone = "team " + visible.Line(m.opts.Team) + " was deleted"
		m.Final = "paneteam: " + m.gone
		m.quitting = true
		return tea.Quit
	}
	if msg.err != nil && msg.snap == nil {
		m.setStatus("", msg.err)
		return nil
	}
	if msg.err != nil {
		m.setStatus("", msg.err) // the snapshot is still right
	}
	m.snap = msg.snap
	m.reqs = msg.reqs
	m.keepSelection()
	return nil
}

func (m *Model) setStatus(s string, err error) {
	m.status, m.isErr = s, err != nil
	if err != nil {
		m.status = "error: " + err.Error()
	}
}

// keepSelection puts each cursor on a row that exists, preferring the
// one chosen before.
func (m *Model) keepSelection() {
	if m.snap != nil {
		m.selMember = pick(m.selMember, len(m.snap.Members), func(i int) string { return m.snap.Members[i].Name })
		m.selTask = pick(m.selTask, len(m.snap.Tasks), func(i int) string { return m.snap.Tasks[i].ID })
	}
	m.selReq = pick(m.selReq, len(m.reqs), func(i int) string { return reqKey(m.reqs[i]) })
}

func reqKey(r approval.Request) string { return r.From + "\x00" + r.ID }

func pick(cur string, n int, key func(int) string) string {
	for i := 0; i < n; i++ {
		if key(i) == cur {
			return cur
		}
	}
	if n == 0 {
		return ""
	}
	return key(0)
}

func index(cur string, n int, key func(int) string) int {
	for i := 0; i < n; i++ {
		if key(i) == cur {
			return i
		}
	}
	return 0
}

func (m *Model) memberIndex() int {
	if m.snap == nil {
		return 0
	}
	return index(m.selMember, len(m.snap.Members), func(i int) string { return m.snap.Members[i].Name })
}

func (m *Model) taskIndex() int {
	if m.snap == nil {
		return 0
	}
	return index(m.selTask, len(m.snap.Tasks), func(i int) string { return m.snap.Tasks[i].ID })
}

func (m *Model) reqIndex() int {
	return index(m.selReq, len(m.reqs), func(i int) string { return reqKey(m.reqs[i]) })
}

// selectedRequest is the request under the cursor.
// requestByKey is the waiting request with reqKey k.
func (m *Model) requestByKey(k string) (approval.Request, bool) {
	for _, r := range m.reqs {
		if reqKey(r) == k {
			return r, true
		}
	}
	return approval.Request{}, false
}

func (m *Model) selectedRequest() (approval.Request, bool) {
	if len(m.reqs) == 0 {
		return approval.Request{}, false
	}
	return m.reqs[m.reqIndex()], true
}

// selectedMember is the member under the cursor.
func (m *Model) selectedMember() (teamwatch.Member, bool) {
	if m.snap == nil || len(m.snap.Members) == 0 {
		return teamwatch.Member{}, false
	}
	return m.snap.Members[m.memberIndex()], true
}

// move moves the focused section's cursor by d rows.
func (m *Model) move(d int) {
	switch m.focus {
	case secMembers:
		if m.snap != nil && len(m.snap.Members) > 0 {
			i := clamp(m.memberIndex()+d, len(m.snap.Members))
			m.selMember = m.snap.Members[i].Name
		}
	case secTasks:
		if m.snap != nil && len(m.snap.Tasks) > 0 {
			i := clamp(m.taskIndex()+d, len(m.snap.Tasks))
			m.selTask = m.snap.Tasks[i].ID
		}
	case secRequests:
		if len(m.reqs) > 0 {
			m.selReq = reqKey(m.reqs[clamp(m.reqIndex()+d, len(m.reqs))])
		}
	}
}

func clamp(i, n int) int {
	return max(0, min(i, n-1))
}

// act runs an action off the UI goroutine and reports its outcome.
func (m *Model) act(what string, f func() (string, error)) tea.Cmd {
	if m.busy {
		m.setStatus("busy: wait for the last action to finish", nil)
		return nil
	}
	m.busy = true
	m.setStatus(what+"...", nil)
	return func() tea.Msg {
		s, err := f()
		return doneMsg{status: s, err: err}
	}
}

func (m *Model) answer(r approval.Request, d approval.Decision) tea.Cmd {
	verb := "denied"
	if d.Approve {
		verb = "approved"
	}
	what := fmt.Sprintf("%s %s from %s", verb, visible.Line(r.ID), visible.Line(r.From))
	return m.act("answering", func() (string, error) {
		return what, m.acts.Answer(m.ctx, r, d)
	})
}
