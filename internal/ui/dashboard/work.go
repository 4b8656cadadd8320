package dashboard

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/term/visible"
)

// The review view: the teammates with work (their counts and whether
// they land cleanly, as 'paneteam review' shows them), one teammate's
// diff with a cursor line to comment on, and a land after a
// confirmation, as 'paneteam land NAME' makes it. Every reading and
// action runs as a tea.Cmd, off the screen's loop: review merges trees
// and a land runs the person's hooks.

// workView is the review view's state.
type workView struct {
	work    *Work // nil until read
	err     error // the last reading's
	reading bool
	sel     string // the teammate under the cursor

	diffOf  string          // the teammate whose diff is shown
	lines   []land.DiffLine // nil while it is read
	diffErr error
	cursor  int // the diff line under the cursor
	top     int // the first diff line on screen

	// outcome is what the last land did (its undo) or why it was
	// refused, shown whole under the list.
	outcome    string
	outcomeErr bool
	back       mode // where a confirmation returns
	helpFrom   mode // where help returns (modeList: as before)
	landing    bool // the confirmation open is a land's
	// inFlight names the teammate a land runs for, "" when none: quitting
	// then would show no outcome, and could stop it letting the worktree
	// go half way.
	inFlight string
	comment  land.Comment
}

type (
	workMsg struct {
		work Work
		err  error
	}
	diffMsg struct {
		name string
		diff land.Diff
		err  error
	}
	landMsg struct {
		name, text string
		err        error
	}
)

// openWork shows the review view and reads it.
func (m *Model) openWork() tea.Cmd {
	m.mode = modeWork
	return m.readWork()
}

func (m *Model) readWork() tea.Cmd {
	m.work.reading = true
	return func() tea.Msg {
		w, err := m.acts.Review(m.ctx)
		return workMsg{w, err}
	}
}

func (m *Model) readDiff(name string) tea.Cmd {
	m.work.diffOf, m.work.lines, m.work.diffErr, m.work.cursor, m.work.top = name, nil, nil, 0, 0
	m.mode = modeDiff
	return func() tea.Msg {
		d, err := m.acts.Diff(m.ctx, name)
		return diffMsg{name, d, err}
	}
}

func (m *Model) workUpdate(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case workMsg:
		m.work.reading = false
		m.work.err = msg.err
		if msg.err == nil {
			w := msg.work
			m.work.work = &w
			m.work.sel = pick(m.work.sel, len(w.Entries), func(i int) string { return w.Entries[i].Name })
		}
	case diffMsg:
		if msg.name != m.work.diffOf {
			return nil // another teammate's diff was asked for since
		}
		m.work.diffErr = msg.err
		if msg.err == nil {
			m.work.lines = diffLines(msg.diff)
		}
	case landMsg:
		m.busy, m.work.inFlight = false, ""
		m.work.outcome, m.work.outcomeErr = msg.text, msg.err != nil
		if msg.err != nil {
			m.work.outcome = msg.err.Error()
			m.setStatus(visible.Line(msg.name)+" was not landed: why is below the list; nothing changed", nil)
		} else {
			m.setStatus("landed "+visible.Line(msg.name)+": what was done and its undo are below the list", nil)
		}
		if m.mode == modeDiff {
			m.mode = modeWork // where the outcome shows; elsewhere the status says it
		}
		return tea.Batch(m.readWork(), m.refresh())
	}
	return nil
}

// diffLines is the diff as the view shows it: committed work, then
// uncommitted work, each under a line that says which.
func diffLines(d land.Diff) []land.DiffLine {
	base := d.Base
	if len(base) > 12 {
		base = base[:12]
	}
	out := []land.DiffLine{{Text: fmt.Sprintf("# committed on %s since %s", d.Branch, base)}}
	if d.Committed == "" {
		out = append(out, land.DiffLine{Text: "# (no committed change)"})
	}
	out = append(out, land.DiffLines(d.Committed)...)
	if d.Uncommitted != "" || len(d.Untracked) > 0 {
		out = append(out, land.DiffLine{Text: ""}, land.DiffLine{Text: uncommittedMark})
		out = append(out, land.DiffLines(d.Uncommitted)...)
		for _, f := range d.Untracked {
			out = append(out, land.DiffLine{Text: "# untracked (not added yet): " + f})
		}
	}
	return out
}

// uncommittedMark opens the diff's uncommitted part.
const uncommittedMark = "# uncommitted in its worktree"

// selectedWork is the teammate under the review list's cursor.
func (m *Model) selectedWork() (land.Entry, bool) {
	if m.work.work == nil || len(m.work.work.Entries) == 0 {
		return land.Entry{}, false
	}
	es := m.work.work.Entries
	return es[index(m.work.sel, len(es), func(i int) string { return es[i].Name })], true
}

func (m *Model) entry(name string) (land.Entry, bool) {
	if m.work.work != nil {
		for _, e := range m.work.work.Entries {
			if e.Name == name {
				return e, true
			}
		}
	}
	return land.Entry{}, false
}

// workKey: the review list's keys.
func (m *Model) workKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.mode = modeList
	case "q":
		m.quitting = true
		return tea.Quit
	case "?":
		m.mode, m.work.helpFrom = modeHelp, modeWork
	case "r":
		return m.readWork()
	case "up", "k", "down", "j":
		if m.work.work != nil && len(m.work.work.Entries) > 0 {
			es := m.work.work.Entries
			d := 1
			if k.String() == "up" || k.String() == "k" {
				d = -1
			}
			i := clamp(index(m.work.sel, len(es), func(i int) string { return es[i].Name })+d, len(es))
			m.work.sel = es[i].Name
		}
	case "enter":
		if e, ok := m.selectedWork(); ok {
			return m.readDiff(e.Name)
		}
	case "l":
		if e, ok := m.selectedWork(); ok {
			m.askLand(e.Name)
		}
	}
	return nil
}

// diffKey: the diff's keys.
func (m *Model) diffKey(k tea.KeyPressMsg) tea.Cmd {
	n := len(m.work.lines)
	page := max(1, m.h-4)
	switch k.String() {
	case "esc":
		m.mode = modeWork
	case "q":
		m.quitting = true
		return tea.Quit
	case "?":
		m.mode, m.work.helpFrom = modeHelp, modeDiff
	case "up", "k":
		m.work.cursor--
	case "down", "j":
		m.work.cursor++
	case "pgup":
		m.work.cursor -= page
		m.work.top -= page
	case "pgdown", "space":
		m.work.cursor += page
		m.work.top += page
	case "home":
		m.work.cursor = 0
	case "end":
		m.work.cursor = n - 1
	case "c":
		m.askComment()
	case "l":
		m.askLand(m.work.diffOf)
	}
	m.work.cursor = clamp(m.work.cursor, n)
	return nil
}

// askComment opens the comment input for the line under the cursor, or
// says why that line takes none.
func (m *Model) askComment() {
	if len(m.work.lines) == 0 {
		m.setStatus("the diff is not shown yet", nil)
		return
	}
	l := m.work.lines[m.work.cursor]
	switch {
	case l.Kind == land.Removed:
		m.setStatus("a removed line cannot be commented on: it is in no file any more; put the cursor on an added (+) or unchanged line", nil)
		return
	case l.Line == 0 || l.File == "":
		m.setStatus("a header line cannot be commented on: put the cursor on an added (+) or unchanged line of a file", nil)
		return
	}
	line, ok := m.nowAt(l)
	if !ok {
		m.setStatus("this committed line has been changed since in "+visible.Line(l.File)+": comment on it in the uncommitted part", nil)
		return
	}
	m.work.comment = land.Comment{File: l.File, Line: line}
	m.setStatus("type the comment; enter sends it to "+visible.Line(m.work.diffOf)+" quoting the line, esc cancels", nil)
	m.mode, m.inputFor, m.target, m.input = modeInput, inputComment, m.work.diffOf, nil
}

// nowAt is where the line l stands in the teammate's file as its
// worktree has it now, which the comment quotes: a committed line moves
// by the uncommitted changes above it (land.Moved), and one they
// changed is on no line.
func (m *Model) nowAt(l land.DiffLine) (int, bool) {
	at := -1 // where the uncommitted part starts
	for i, d := range m.work.lines {
		if d.Kind == land.Header && d.Text == uncommittedMark {
			at = i
			break
		}
	}
	if at < 0 || m.work.cursor > at {
		return l.Line, true
	}
	return land.Moved(m.work.lines[at:], l.File, l.Line)
}

// sendComment sends the typed comment.
func (m *Model) sendComment(text string) tea.Cmd {
	if text == "" {
		m.setStatus("empty comment not sent", nil)
		return nil
	}
	to, c := m.target, m.work.comment
	c.Text = text
	at := fmt.Sprintf("%s:%d", visible.Line(c.File), c.Line)
	return m.act("sending the comment", func() (string, error) {
		return "comment on " + at + " sent to " + visible.Line(to), m.acts.Comment(m.ctx, to, c)
	})
}

// askLand opens the confirmation, which says what the land will do.
func (m *Model) askLand(name string) {
	e, ok := m.entry(name)
	if !ok {
		m.setStatus(visible.Line(name)+" has no work to land now (r reads again)", nil)
		return
	}
	onto := "your branch"
	if m.work.work.Onto != "" {
		onto = m.work.work.Onto
	}
	q := fmt.Sprintf("land %s onto %s by %s (%s)? Then its worktree %s and its branch %s go (kept if anything in them is not on %s); the undo command is shown after.",
		e.Name, onto, land.DefaultMode, modeWords(land.DefaultMode), e.Path, e.Branch, onto)
	if !e.Clean {
		q += " It does not land cleanly: " + land.FileList(e.LeadConflicts, land.ListedFiles) + " conflict, so it will be refused."
	}
	m.work.back, m.work.landing = m.mode, true
	m.mode, m.target = modeConfirm, name
	m.setStatus(q, nil)
}

// modeWords says what a land mode makes.
func modeWords(m land.Mode) string {
	switch m {
	case land.Squash:
		return "one commit of the whole change"
	case land.Rebase:
		return "its commits replayed on yours"
	}
	return "a merge commit; its commits kept as they are"
}

// landKey answers the land's confirmation: y lands, any other key does not.
func (m *Model) landKey(k tea.KeyPressMsg) tea.Cmd {
	m.mode, m.work.landing = m.work.back, false
	if k.String() != "y" && k.String() != "Y" {
		m.setStatus("not landed: nothing changed", nil)
		return nil
	}
	if m.busy {
		m.setStatus("busy: wait for the last action to finish", nil)
		return nil
	}
	name := m.target
	m.busy, m.work.inFlight = true, name
	m.setStatus("landing "+visible.Line(name)+"...", nil)
	return func() tea.Msg {
		text, err := m.acts.Land(m.ctx, name)
		return landMsg{name, text, err}
	}
}
