package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/term/visible"
)

// detailLines shows the selected row whole, wrapped, never cut.
func (m *Model) detailLines(w, h int) []string {
	var body []string
	switch m.detail {
	case secMembers:
		body = m.memberDetail(w)
	case secTasks:
		body = m.taskDetail(w)
	case secRequests:
		// The request opened stays on screen; if it stops waiting it is
		// not replaced by another under the same keys.
		r, ok := m.requestByKey(m.shown)
		if !ok {
			body = []string{"This request is no longer waiting (answered elsewhere, or its teammate left). Esc goes back."}
		} else {
			body = m.requestDetail(r, w)
		}
	}
	return append([]string{m.header(w)}, m.scrolled(body, h-1)...)
}

// scrolled shows h lines of body from the scroll position, saying where
// more lies above or below.
func (m *Model) scrolled(body []string, h int) []string {
	if len(body) <= h {
		m.scroll = 0
		return body
	}
	m.scroll = max(0, min(m.scroll, len(body)-h+2))
	view := body[m.scroll:]
	var out []string
	if m.scroll > 0 {
		out = append(out, fmt.Sprintf("(%d lines above: up/pgup)", m.scroll))
	}
	room := h - len(out)
	if len(view) > room {
		out = append(out, view[:room-1]...)
		out = append(out, fmt.Sprintf("(%d lines below: down/pgdn)", len(view)-room+1))
	} else {
		out = append(out, view...)
	}
	return out
}

// field wraps "label: value" so that the value is never cut.
func field(label, value string, w int) []string {
	return wrap(label+": "+value, w)
}

func (m *Model) memberDetail(w int) []string {
	mb, ok := m.selectedMember()
	if !ok {
		return []string{"No member."}
	}
	v := visible.Line
	out := field("member", v(mb.Name), w)
	out = append(out, field("state", stateMark(mb.State), w)...)
	out = append(out, field("agent id", v(mb.AgentID), w)...)
	out = append(out, field("runs", v(mb.Runs()), w)...)
	out = append(out, field("type", v(mb.AgentType), w)...)
	if mb.Branch != "" {
		out = append(out, field("branch", v(mb.Branch), w)...)
	}
	out = append(out, field("backend", v(mb.Backend), w)...)
	out = append(out, field("pane", fmt.Sprintf("%s %s", v(mb.PaneID), v(mb.Pane)), w)...)
	if mb.PaneError != "" {
		out = append(out, field("pane check", v(mb.PaneError), w)...)
	}
	out = append(out, field("unread", fmt.Sprint(mb.Unread), w)...)
	out = append(out, field("requests waiting", fmt.Sprint(mb.Waiting), w)...)
	if u := mb.Usage; u != nil {
		out = append(out, field("tokens", tokens(u), w)...)
		out = append(out, field("cost", usd(u)+oneOf(len(u.Unpriced) > 0, " (no price for "+v(strings.Join(u.Unpriced, ", "))+")"), w)...)
	}
	if mb.Asks != "" {
		out = append(out, field("needs you", v(mb.Asks), w)...)
		if mb.AsksAbout != "" {
			out = append(out, field("it asks", v(mb.AsksAbout), w)...)
		}
	}
	if !mb.LastIdle.IsZero() {
		out = append(out, field("last idle", fmt.Sprintf("%s ago (%s)", ago(m.opts.Now().Sub(mb.LastIdle)), v(mb.IdleReason)), w)...)
		out = append(out, field("summary", v(mb.IdleSummary), w)...)
	}
	return out
}

func (m *Model) taskDetail(w int) []string {
	if m.snap == nil || len(m.snap.Tasks) == 0 {
		return []string{"No task."}
	}
	t := m.snap.Tasks[m.taskIndex()]
	v := visible.Line
	out := field("task", "#"+v(t.ID), w)
	out = append(out, field("subject", v(t.Subject), w)...)
	out = append(out, field("status", v(t.Status), w)...)
	out = append(out, field("owner", v(t.Owner), w)...)
	out = append(out, field("blocked by", strings.Join(visibleAll(t.BlockedBy), ", "), w)...)
	out = append(out, field("still open", strings.Join(visibleAll(t.OpenBlockers), ", "), w)...)
	out = append(out, field("blocks", strings.Join(visibleAll(t.Blocks), ", "), w)...)
	return out
}

// requestDetail is everything a person needs to judge r: the whole tool
// input (indented JSON) or the whole plan, made visible.
func (m *Model) requestDetail(r approval.Request, w int) []string {
	v := visible.Line
	out := field("request", v(r.ID), w)
	out = append(out, field("from", v(r.From), w)...)
	out = append(out, field("kind", string(r.Kind), w)...)
	out = append(out, field("waiting", ago(m.opts.Now().Sub(r.Time)), w)...)
	switch r.Kind {
	case approval.KindPermission:
		out = append(out, field("tool", v(r.ToolName), w)...)
		if r.Description != "" {
			out = append(out, field("description", v(r.Description), w)...)
		}
		out = append(out, field("asks", approval.Subject(r), w)...)
		out = append(out, "input:")
		out = append(out, wrap(visible.Block(indentJSON(r.Input)), w)...)
		if alwaysOffered(r) {
			out = append(out, "", "A approves and adds the \"always allow\" rule it suggests.")
		}
	case approval.KindSandbox:
		out = append(out, field("network host", v(r.Host), w)...)
	case approval.KindPlan:
		out = append(out, field("plan file", v(r.PlanFilePath), w)...)
		out = append(out, field("plan", approval.Subject(r), w)...)
		if r.PlanConflict {
			out = append(out, wrap("warning: two different plans came under this id; an approval cannot say which", w)...)
		}
		out = append(out, strings.Repeat("-", min(w, 40)))
		out = append(out, wrap(visible.Block(r.PlanContent), w)...)
		out = append(out, strings.Repeat("-", min(w, 40)))
	}
	return out
}

// indentJSON shows a tool input as indented JSON, so long inputs read on
// several lines; input that does not parse is shown as it came.
func indentJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "  ", "  ") != nil {
		return "  " + string(raw)
	}
	return "  " + buf.String()
}

// reviewLines is the popup: one request, whole, with where it stands.
func (m *Model) reviewLines(w, h int) []string {
	if m.snap == nil {
		return []string{m.header(w)}
	}
	if len(m.reqs) == 0 {
		msg := "No requests are waiting for the lead of team " + v(m.opts.Team) + "."
		return append([]string{m.header(w), ""}, append(wrap(msg, w), "", "Press any key to close.")...)
	}
	head := fmt.Sprintf("request %d of %d waiting | team %s", m.reqIndex()+1, len(m.reqs), v(m.opts.Team))
	r, _ := m.selectedRequest()
	m.shown = reqKey(r) // what the single keys answer (keys.go)
	return append([]string{m.st.paint(m.st.title, cut(head, w))}, m.scrolled(m.requestDetail(r, w), h-1)...)
}

func v(s string) string { return visible.Line(s) }
