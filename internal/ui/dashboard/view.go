package dashboard

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/term/visible"
)

// View is the screen Bubble Tea draws, on the alternate screen (left on
// quitting, so the person's terminal comes back as it was) with the
// cursor hidden (a nil Cursor).
func (m *Model) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	return v
}

// screen draws the whole screen: exactly h lines, none wider than w.
func (m *Model) screen() string {
	if m.quitting {
		return "" // leave a clean screen behind
	}
	w, h := max(m.w, 20), max(m.h, 6)
	foot := m.footer(w, max(1, h/4))
	body := h - len(foot)
	var lines []string
	switch under := m.underneath(); {
	case m.mode == modeHelp:
		lines = m.helpLines(w)
	case under == modeWork:
		lines = m.workLines(w, body)
	case under == modeDiff:
		lines = m.diffView(w, body)
	case m.opts.Review:
		lines = m.reviewLines(w, body)
	case m.mode == modeDetail:
		lines = m.detailLines(w, body)
	default:
		lines = m.listLines(w, body)
	}
	lines = append(fill(lines, body), foot...)
	for i, l := range lines {
		lines[i] = cut(l, w)
	}
	return strings.Join(lines, "\n")
}

// fill cuts or pads lines to n.
func fill(lines []string, n int) []string {
	if len(lines) > n {
		return lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}

func (m *Model) header(w int) string {
	t := "paneteam dashboard: team " + visible.Line(m.opts.Team)
	if m.opts.Review {
		t = "paneteam requests: team " + visible.Line(m.opts.Team)
	}
	if m.snap == nil {
		return m.st.paint(m.st.title, cut(t+" (reading...)", w))
	}
	needs := 0
	for _, mb := range m.snap.Members {
		if mb.State == teamwatch.StateNeedsYou {
			needs++
		}
	}
	t += fmt.Sprintf(" | %d members | %d tasks | %d waiting", len(m.snap.Members), len(m.snap.Tasks), len(m.reqs))
	if u := m.snap.Usage; u != nil && u.CostUSD != nil {
		t += " | " + usd(u) + " spent"
	}
	if r := m.snap.Resumable; r != nil {
		// Its lead and panes went away: what brings it back comes first
		// to be read, before the width cuts it.
		t = "RESUMABLE (" + visible.Line(r.Command) + ") " + t
	}
	if needs > 0 {
		t = "! " + t
	}
	return m.st.paint(m.st.title, cut(t, w))
}

// listLines is the main screen: three sections sharing the height.
func (m *Model) listLines(w, h int) []string {
	out := []string{m.header(w)}
	if m.snap == nil {
		return out
	}
	rows := []int{len(m.snap.Members), len(m.snap.Tasks), len(m.reqs)}
	alloc := share(h-1-int(nSections), rows)
	for sec := section(0); sec < nSections; sec++ {
		out = append(out, m.heading(sec, w))
		out = append(out, m.sectionRows(sec, w, alloc[sec])...)
	}
	return out
}

// share divides n rows among sections wanting want[i] each (at least one
// row each for an "(none)" line), giving the rest to whoever wants more.
func share(n int, want []int) []int {
	got := make([]int, len(want))
	left := n
	for i := range want {
		if left > 0 {
			got[i] = 1
			left--
		}
	}
	for left > 0 {
		gave := false
		for i := range want {
			if left > 0 && got[i] < want[i] {
				got[i]++
				left--
				gave = true
			}
		}
		if !gave {
			break
		}
	}
	return got
}

var sectionNames = [nSections]string{"MEMBERS", "TASKS", "REQUESTS WAITING FOR YOU"}

func (m *Model) heading(sec section, w int) string {
	name := sectionNames[sec]
	n := 0
	switch sec {
	case secMembers:
		n = len(m.snap.Members)
	case secTasks:
		n = len(m.snap.Tasks)
	case secRequests:
		n = len(m.reqs)
	}
	text := fmt.Sprintf("%s (%d)", name, n)
	if sec == m.focus {
		return m.st.paint(m.st.focus, cut("["+text+"]", w))
	}
	return m.st.paint(m.st.heading, cut(" "+text, w))
}

// sectionRows renders up to h rows of a section, scrolled so the cursor
// row shows, with "+N more" marks where rows are out of sight.
func (m *Model) sectionRows(sec section, w, h int) []string {
	if h <= 0 {
		return nil
	}
	var n, cur int
	var row func(i int) string
	switch sec {
	case secMembers:
		n, cur = len(m.snap.Members), m.memberIndex()
		nameW := nameWidth(m.snap.Members)
		row = func(i int) string { return m.memberRow(m.snap.Members[i], nameW) }
	case secTasks:
		n, cur = len(m.snap.Tasks), m.taskIndex()
		row = func(i int) string { return taskRow(m.snap.Tasks[i], w-2) }
	case secRequests:
		n, cur = len(m.reqs), m.reqIndex()
		row = func(i int) string { return m.requestRow(m.reqs[i], w-2) }
	}
	if n == 0 {
		return []string{m.st.paint(m.st.dim, "  (none)")}
	}
	first := 0
	if n > h {
		first = max(0, min(cur-h/2, n-h))
	}
	var out []string
	for i := first; i < n && len(out) < h; i++ {
		switch {
		case len(out) == 0 && first > 0:
			out = append(out, fmt.Sprintf("  (%d more above)", first))
			continue
		case len(out) == h-1 && i < n-1:
			out = append(out, fmt.Sprintf("  (%d more below)", n-i))
			continue
		}
		text := pad(row(i), w-2)
		if i == cur && sec == m.focus {
			out = append(out, "> "+m.st.paint(m.st.cursor, text))
		} else if i == cur {
			out = append(out, "- "+text)
		} else {
			out = append(out, "  "+text)
		}
	}
	return out
}

// stateMark reads without colour: "!" and capitals for what needs you.
func stateMark(s teamwatch.State) string {
	switch s {
	case teamwatch.StateNeedsYou:
		return "! NEEDS YOU"
	case teamwatch.StateGone:
		return "x gone"
	case teamwatch.StateActive:
		return "* active"
	case teamwatch.StateIdle:
		return "- idle"
	}
	return string(s)
}

// nameWidth is the width of the members' name column: 14, wider (up to
// 26) when a teammate on another machine shows its host (alice@buildbox).
func nameWidth(ms []teamwatch.Member) int {
	w := 14
	for _, mb := range ms {
		if mb.Host != "" {
			w = max(w, min(26, width(visible.Line(mb.Label()))))
		}
	}
	return w
}

// memberRow is one member: its name (with @host for a teammate on another
// machine) in a column nameW wide, its state, the CLI it runs, its
// backend and whether its pane is alive, its unread count.
func (m *Model) memberRow(mb teamwatch.Member, nameW int) string {
	pane := mb.Pane
	if pane == "" {
		pane = "?"
	}
	unread := fmt.Sprint(mb.Unread)
	if mb.Unread < 0 {
		unread = "?"
	}
	be := mb.Backend
	if be == "" {
		be = "-"
	}
	state := pad(stateMark(mb.State), 11)
	switch mb.State {
	case teamwatch.StateNeedsYou:
		state = m.st.paint(m.st.needs, state)
	case teamwatch.StateGone:
		state = m.st.paint(m.st.gone, state)
	}
	cli := mb.CLI
	if cli == "" {
		cli = "-"
	}
	// The pane's liveness stands beside its backend ("tmux alive"),
	// unlabelled, so the row still fits 80 columns with a request
	// waiting.
	rest := fmt.Sprintf(" %-8s %-9s %-7s unread %-3s", cut(visible.Line(cli), 8), cut(visible.Line(be), 9), cut(visible.Line(pane), 7), unread)
	if mb.Waiting > 0 {
		rest += fmt.Sprintf(" waiting %d", mb.Waiting)
	}
	if mb.Asks != "" {
		rest += " asks in pane"
	}
	if mb.Usage != nil {
		rest += " " + usd(mb.Usage)
	}
	return pad(visible.Line(mb.Label()), nameW) + " " + state + rest
}

func taskRow(t teamwatch.Task, w int) string {
	owner := t.Owner
	if owner == "" {
		owner = "-"
	}
	var deps []string
	if len(t.OpenBlockers) > 0 {
		deps = append(deps, "blocked by #"+strings.Join(visibleAll(t.OpenBlockers), ",#"))
	}
	if len(t.Blocks) > 0 {
		deps = append(deps, "blocks #"+strings.Join(visibleAll(t.Blocks), ",#"))
	}
	head := fmt.Sprintf("#%-4s %-11s %-10s ", cut(visible.Line(t.ID), 4), cut(visible.Line(t.Status), 11), cut(visible.Line(owner), 10))
	tail := ""
	if len(deps) > 0 {
		tail = " [" + strings.Join(deps, "; ") + "]"
	}
	// The dependencies matter more than the end of the subject: the
	// subject gives way first, down to a few columns.
	subjW := max(8, w-width(head)-width(tail))
	return head + cut(visible.Line(t.Subject), subjW) + tail
}

func visibleAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = visible.Line(s)
	}
	return out
}

func (m *Model) requestRow(r approval.Request, w int) string {
	age := ago(m.opts.Now().Sub(r.Time))
	head := pad(visible.Line(r.ID), 22) + " " + pad(visible.Line(r.From), 10) + " " + fmt.Sprintf("%4s ", age)
	return head + cut(approval.Subject(r), max(0, w-width(head)))
}

// ago is a short age: 12s, 3m, 2h, 4d.
func ago(d time.Duration) string {
	switch {
	case d < 0:
		return "now"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// footer is the last action's outcome, wrapped on up to max lines so
// that a refusal can be read whole, and the keys.
func (m *Model) footer(w, maxLines int) []string {
	status := wrap(visible.Line(m.status), w)
	if len(status) > maxLines {
		status = status[:maxLines]
		status[maxLines-1] = cut(status[maxLines-1]+ellipsis+ellipsis, w)
	}
	if m.isErr {
		for i := range status {
			status[i] = m.st.paint(m.st.err, status[i])
		}
	}
	var keys string
	switch {
	case m.mode == modeInput && m.inputFor == inputDeny:
		keys = "deny " + visible.Line(m.targetR.ID) + ", feedback (optional): " + m.inputLine(w)
	case m.mode == modeInput && m.inputFor == inputComment:
		keys = fmt.Sprintf("comment to %s on %s:%d: ", visible.Line(m.target), visible.Line(m.work.comment.File), m.work.comment.Line) + m.inputLine(w)
	case m.mode == modeInput:
		keys = "message to " + visible.Line(m.target) + ": " + m.inputLine(w)
	case m.mode == modeConfirm && m.work.landing:
		keys = "y: land  n, esc or any other key: do not (nothing changes)"
	case m.mode == modeConfirm:
		keys = "stop " + visible.Line(m.target) + "? it is asked to shut down. y: yes, any other key: no"
	case m.mode == modeHelp:
		keys = "any key: back"
	case m.opts.Review:
		keys = "a approve  A always  d deny  n/p next/prev  up/down scroll  ? help  q quit"
	case m.mode == modeDetail:
		keys = "up/down scroll  a approve  A always  d deny  esc back  q quit"
	case m.mode == modeWork:
		keys = "up/down select  enter diff  l land  r read again  esc back  ? help  q quit"
	case m.mode == modeDiff:
		keys = "up/down line  pgup/pgdn page  c comment  l land  esc back  ? help  q quit"
	default:
		keys = "tab move  enter show  a/A/d answer  m msg  h hide  s stop  g go  r review  ? q"
	}
	return append(status, cut(keys, w))
}

// inputLine shows the end of what is typed, so the cursor stays in view.
func (m *Model) inputLine(w int) string {
	text := visible.Line(string(m.input)) + "_"
	room := max(10, w-40)
	if width(text) > room {
		text = ellipsis + ansiTail(text, room-1)
	}
	return text
}

func ansiTail(s string, w int) string {
	r := []rune(s)
	for i := range r {
		if width(string(r[i:])) <= w {
			return string(r[i:])
		}
	}
	return ""
}

var helpText = []string{
	"Keys",
	"",
	"  tab, shift-tab   move between members, tasks and requests",
	"  up/down, j/k     select a row",
	"  enter            show the selected row whole (a request's input or plan)",
	"  a                approve the request shown whole (from the list, a shows it first)",
	"  A                approve it and add the \"always allow\" rule it suggests",
	"  d                deny it (you may type feedback for the teammate)",
	"  m                send a message to the selected member",
	"  h                hide or show the selected member's pane",
	"  s                stop the selected teammate (asks it to shut down; confirm)",
	"  g                go to the selected member's tmux pane",
	"  r                review: the teammates with work to land on your branch",
	"  q, ctrl-c        quit",
	"",
	"Review (r): up/down, enter its diff, l land (says how; y lands), r read again.",
	"Its diff: up/down line, pgup/pgdn page, c comment on the cursor line, l land.",
	"Requests mode (--requests): n/p next/previous request, a/A/d answer, q quit.",
	"",
	"Marks: ! NEEDS YOU = a request waits for you; * active; - idle; x gone.",
	"Text cut to fit ends in " + ellipsis + "; enter shows it whole.",
}

func (m *Model) helpLines(w int) []string {
	return append([]string{m.header(w)}, helpText...)
}
