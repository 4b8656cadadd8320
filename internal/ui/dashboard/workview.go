package dashboard

import (
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/term/visible"
)

// underneath is the view drawn behind a confirmation or an input: the
// review list or the diff they came from, else the main list.
func (m *Model) underneath() mode {
	switch {
	case m.mode == modeConfirm && m.work.landing:
		return m.work.back
	case m.mode == modeInput && m.inputFor == inputComment:
		return modeDiff
	}
	return m.mode
}

func (m *Model) workHeader(w int, what string) string {
	return m.st.paint(m.st.title, cut("paneteam dashboard: team "+v(m.opts.Team)+" | "+what, w))
}

// workLines is the review list: one row per teammate with work, then
// the selected one whole, then what the last land did.
func (m *Model) workLines(w, h int) []string {
	onto := "your branch"
	if m.work.work != nil && m.work.work.Onto != "" {
		onto = v(m.work.work.Onto)
	}
	out := []string{m.workHeader(w, "work to land on "+onto)}
	var tail []string
	switch {
	case m.work.err != nil:
		tail = wrap(visible.Block(m.work.err.Error()), w)
	case m.work.work == nil:
		tail = []string{"reading each teammate's work..."}
	case len(m.work.work.Entries) == 0:
		tail = []string{"No teammate has work to review."}
	default:
		tail = m.workDetail(w)
	}
	if m.work.outcome != "" {
		tail = append(tail, "")
		for _, l := range wrap(visible.Block(m.work.outcome), w) {
			if m.work.outcomeErr {
				l = m.st.paint(m.st.err, l)
			}
			tail = append(tail, l)
		}
	}
	n := 0
	if m.work.work != nil {
		n = len(m.work.work.Entries)
	}
	heading := fmt.Sprintf("[TEAMMATES WITH WORK (%d)]", n)
	if m.work.reading {
		heading += " reading..."
	}
	out = append(out, m.st.paint(m.st.focus, cut(heading, w)))
	if n > 0 {
		out = append(out, m.st.paint(m.st.heading, cut("  "+pad("TEAMMATE", 16)+" AHEAD UNCOMMITTED LINES         LANDS ON "+onto, w)))
		out = append(out, m.workRows(w, max(1, h-len(out)-len(tail)-1))...)
		out = append(out, "")
	}
	return append(out, tail...)
}

// workRows are up to h rows of the list, scrolled to the cursor.
func (m *Model) workRows(w, h int) []string {
	es := m.work.work.Entries
	cur := index(m.work.sel, len(es), func(i int) string { return es[i].Name })
	first := 0
	if len(es) > h {
		first = max(0, min(cur-h/2, len(es)-h))
	}
	var out []string
	for i := first; i < len(es) && len(out) < h; i++ {
		text := pad(m.workRow(es[i]), w-2)
		if i == cur {
			out = append(out, "> "+m.st.paint(m.st.cursor, text))
		} else {
			out = append(out, "  "+text)
		}
	}
	return out
}

// workRow is one teammate: its name (marked when it still runs or its
// worktree went), its counts, whether it lands cleanly and with whom it
// conflicts. Everything but the counts is the teammate's text.
func (m *Model) workRow(e land.Entry) string {
	name := v(e.Name)
	switch {
	case e.Running:
		name += " (running)"
	case e.Gone:
		name += " (no tree)"
	}
	lands := "cleanly"
	if !e.Clean {
		lands = "conflicts: " + strings.Join(visibleAll(e.LeadConflicts), ", ")
	}
	if len(e.ConflictsWith) > 0 {
		lands += "; conflicts with " + strings.Join(visibleAll(e.ConflictsWith), ", ")
	}
	lines := fmt.Sprintf("+%d -%d", e.Added, e.Removed)
	return fmt.Sprintf("%s %5s %11s %-13s %s", pad(name, 16), count(e.Ahead), count(e.Uncommitted), lines, lands)
}

func count(n int) string {
	if n < 0 {
		return "?"
	}
	return fmt.Sprint(n)
}

// workDetail is the selected teammate whole: nothing cut.
func (m *Model) workDetail(w int) []string {
	e, _ := m.selectedWork()
	out := field(v(e.Name)+"'s branch", v(e.Branch), w)
	tree := v(e.Path)
	if e.Gone {
		tree += " (gone; its branch stays)"
	}
	out = append(out, field("worktree", tree, w)...)
	if e.Running {
		out = append(out, wrap("still running: it may still be writing, so a land is refused until it ends", w)...)
	}
	if len(e.ConflictsWith) > 0 || !e.Clean {
		with := strings.Join(visibleAll(e.ConflictsWith), ", ")
		if !e.Clean {
			with = strings.TrimSuffix(v(m.work.work.Onto)+", "+with, ", ")
		}
		out = append(out, field("conflicts with", with+" in "+strings.Join(visibleAll(e.ConflictFiles), ", "), w)...)
	}
	return out
}

// diffView is the teammate's diff, the cursor line marked "> ", the
// view scrolled so that it shows.
func (m *Model) diffView(w, h int) []string {
	e, _ := m.entry(m.work.diffOf)
	ls := m.work.lines
	head := v(m.work.diffOf) + "'s diff"
	if len(ls) > 0 {
		head += fmt.Sprintf(", line %d of %d", m.work.cursor+1, len(ls))
	}
	if e.Name != "" {
		head += fmt.Sprintf(" | %s ahead, %s uncommitted, +%d -%d | %s", count(e.Ahead), count(e.Uncommitted), e.Added, e.Removed, v(e.Branch))
	}
	out := []string{m.workHeader(w, head)}
	switch {
	case m.work.diffErr != nil:
		return append(out, wrap(visible.Block(m.work.diffErr.Error()), w)...)
	case ls == nil:
		return append(out, "reading the diff...")
	}
	room := max(1, h-1)
	m.work.top = clamp(min(m.work.top, m.work.cursor), max(1, len(ls)-room+1))
	if m.work.cursor >= m.work.top+room {
		m.work.top = m.work.cursor - room + 1
	}
	for i := m.work.top; i < len(ls) && len(out) < h; i++ {
		text := m.diffText(ls[i], w-2)
		if i == m.work.cursor {
			out = append(out, "> "+m.st.paint(m.st.cursor, pad(text, w-2)))
		} else {
			out = append(out, "  "+m.st.paint(m.diffStyle(ls[i]), text))
		}
	}
	return out
}

// diffText is a diff line as it may reach the terminal: tabs expanded,
// then made visible (visible.Line), cut to w.
func (m *Model) diffText(l land.DiffLine, w int) string {
	return cut(visible.Line(expandTabs(l.Text)), w)
}

func (m *Model) diffStyle(l land.DiffLine) sgr {
	switch l.Kind {
	case land.Added:
		return m.st.added
	case land.Removed:
		return m.st.removed
	case land.Hunk:
		return m.st.hunk
	case land.Header:
		return m.st.heading
	}
	return ""
}

// tabWidth is the columns a tab in a diff line moves to (after the
// line's first column, its +, - or space).
const tabWidth = 4

func expandTabs(s string) string {
	if !strings.Contains(s, "\t") || s == "" {
		return s
	}
	var b strings.Builder
	b.WriteByte(s[0])
	col := 0
	for _, r := range s[1:] {
		if r == '\t' {
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}
