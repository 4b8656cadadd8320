package dashboard

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/term/visible"
)

// key handles one key press in the current mode.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	if m.work.inFlight != "" && (k.String() == "ctrl+c" || k.String() == "q" && m.mode != modeInput) {
		m.setStatus("landing: wait for the land of "+visible.Line(m.work.inFlight)+" to finish; it then says what it did and its undo", nil)
		return nil
	}
	if k.String() == "ctrl+c" {
		m.quitting = true
		return tea.Quit
	}
	switch m.mode {
	case modeInput:
		return m.inputKey(k)
	case modeConfirm:
		if m.work.landing {
			return m.landKey(k)
		}
		return m.confirmKey(k)
	case modeHelp:
		m.mode = modeList
		if m.opts.Review {
			m.mode = modeDetail
		}
		if m.work.helpFrom != modeList {
			m.mode, m.work.helpFrom = m.work.helpFrom, modeList
		}
		return nil
	case modeWork:
		return m.workKey(k)
	case modeDiff:
		return m.diffKey(k)
	}
	if m.opts.Review {
		return m.reviewKey(k)
	}
	if m.mode == modeDetail {
		if cmd, ok := m.detailKey(k); ok {
			return cmd
		}
	}
	return m.listKey(k)
}

func (m *Model) listKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "tab":
		m.focus = (m.focus + 1) % nSections
	case "shift+tab":
		m.focus = (m.focus + nSections - 1) % nSections
	case "enter":
		m.mode, m.detail, m.scroll = modeDetail, m.focus, 0
		if r, ok := m.selectedRequest(); ok && m.focus == secRequests {
			m.shown = reqKey(r)
		}
	case "esc":
		m.mode = modeList
	case "q":
		m.quitting = true
		return tea.Quit
	case "?":
		m.mode = modeHelp
	case "r":
		return m.openWork()
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "a", "A", "d":
		// A request is answered only from a view that shows it whole: a
		// list row may be cut, and the command's tail is what matters.
		r, ok := m.selectedRequest()
		if !ok {
			m.setStatus("no request is waiting", nil)
			return nil
		}
		m.focus = secRequests
		m.mode, m.detail, m.scroll, m.shown = modeDetail, secRequests, 0, reqKey(r)
		m.setStatus("shown whole: a approves, A approves always, d denies, Esc goes back", nil)
		return nil
	case "m":
		if mb, ok := m.selectedMember(); ok {
			m.mode, m.inputFor, m.target, m.input = modeInput, inputMessage, mb.Name, nil
		}
	case "h":
		if mb, ok := m.selectedMember(); ok {
			name := mb.Name
			return m.act("moving "+visible.Line(name)+"'s pane", func() (string, error) {
				hidden, err := m.acts.ToggleHidden(m.ctx, name)
				if hidden {
					return visible.Line(name) + "'s pane hidden (it keeps running); h shows it", err
				}
				return visible.Line(name) + "'s pane shown", err
			})
		}
	case "s":
		if mb, ok := m.selectedMember(); ok {
			m.mode, m.target = modeConfirm, mb.Name
		}
	case "g":
		if mb, ok := m.selectedMember(); ok {
			name := mb.Name
			quit := m.opts.QuitAfterJump
			if m.busy {
				return nil
			}
			m.busy = true
			return func() tea.Msg {
				err := m.acts.Jump(m.ctx, name)
				return doneMsg{status: "jumped to " + visible.Line(name) + "'s pane", err: err, quit: quit}
			}
		}
	}
	return nil
}

// requestKey answers the selected request: a approve, A approve always,
// d deny (asking for optional feedback first).
func (m *Model) requestKey(key string) tea.Cmd {
	r, ok := m.selectedRequest()
	if !ok {
		m.setStatus("no request is waiting", nil)
		return nil
	}
	switch key {
	case "a":
		return m.answer(r, approval.Decision{Approve: true})
	case "A":
		if !alwaysOffered(r) {
			m.setStatus("this request offers no \"always allow\" rule: a approves it once", nil)
			return nil
		}
		return m.answer(r, approval.Decision{Approve: true, Always: true})
	case "d":
		m.mode, m.inputFor, m.targetR, m.input = modeInput, inputDeny, r, nil
	}
	return nil
}

func alwaysOffered(r approval.Request) bool {
	if r.Kind != approval.KindPermission {
		return false
	}
	_, err := approval.AlwaysRules(r)
	return err == nil
}

// detailKey scrolls the detail view and answers the request shown; ok is
// false for keys the list handles the same way.
func (m *Model) detailKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	switch k.String() {
	case "esc", "enter":
		m.mode = modeList
		return nil, true
	case "up", "k":
		m.scroll = max(0, m.scroll-1)
		return nil, true
	case "down", "j":
		m.scroll++
		return nil, true
	case "pgup":
		m.scroll = max(0, m.scroll-(m.h-4))
		return nil, true
	case "pgdown", "space":
		m.scroll += m.h - 4
		return nil, true
	case "a", "A", "d":
		if m.detail != secRequests {
			return nil, true
		}
		if _, ok := m.requestByKey(m.shown); !ok {
			// The request on screen was answered elsewhere or withdrawn
			// while it was read: answer nothing in its place.
			m.mode = modeList
			m.setStatus("the request shown is no longer waiting: nothing was answered", nil)
			return nil, true
		}
		m.selReq = m.shown
		cmd := m.requestKey(k.String())
		if m.mode == modeDetail && cmd != nil {
			m.mode = modeList
		}
		return cmd, true
	}
	return nil, false
}

// reviewKey: the popup's single keys.
func (m *Model) reviewKey(k tea.KeyPressMsg) tea.Cmd {
	if len(m.reqs) == 0 && m.snap != nil && !m.busy {
		m.quitting = true // "none waiting: press any key"
		return tea.Quit
	}
	switch k.String() {
	case "up":
		m.scroll = max(0, m.scroll-1)
	case "down":
		m.scroll++
	case "pgup":
		m.scroll = max(0, m.scroll-(m.h-4))
	case "pgdown", "space":
		m.scroll += m.h - 4
	case "esc", "q":
		m.quitting = true
		return tea.Quit
	case "?":
		m.mode = modeHelp
	case "n", "j":
		m.move(1)
		m.scroll = 0
	case "p", "k":
		m.move(-1)
		m.scroll = 0
	case "a", "A", "d":
		if r, ok := m.selectedRequest(); ok && m.shown != "" && reqKey(r) != m.shown {
			m.setStatus("the request shown changed just now: look again, nothing was answered", nil)
			return nil
		}
		return m.requestKey(k.String())
	}
	return nil
}

// inputKey edits the one-line text input: Enter sends, Esc cancels.
func (m *Model) inputKey(k tea.KeyPressMsg) tea.Cmd {
	back := modeList
	if m.opts.Review {
		back = modeDetail
	}
	if m.inputFor == inputComment {
		back = modeDiff
	}
	switch k.String() {
	case "esc":
		m.mode = back
		m.setStatus("cancelled", nil)
		return nil
	case "enter":
		m.mode = back
		// What was typed goes as typed; only a blank line counts as none.
		text := string(m.input)
		if strings.TrimSpace(text) == "" {
			text = ""
		}
		if m.inputFor == inputDeny {
			return m.answer(m.targetR, approval.Decision{Feedback: text})
		}
		if m.inputFor == inputComment {
			return m.sendComment(text)
		}
		if text == "" {
			m.setStatus("empty message not sent", nil)
			return nil
		}
		to := m.target
		return m.act("sending", func() (string, error) {
			return "message sent to " + visible.Line(to), m.acts.Send(m.ctx, to, text)
		})
	case "backspace":
		if len(m.input) > 0 {
			m.input = m.input[:len(m.input)-1]
		}
		return nil
	case "ctrl+u":
		m.input = nil
		return nil
	}
	m.typed(k.Text) // a printable key's text, space included; none for ctrl+x, arrows
	return nil
}

// typed adds text to the input, keeping what prints: a key's text or
// a paste (whose line breaks and tabs are dropped, as the input is one line).
func (m *Model) typed(text string) {
	for _, r := range text {
		if unicode.IsPrint(r) || r == ' ' {
			m.input = append(m.input, r)
		}
	}
}

// confirmKey: y stops the teammate, anything else does not.
func (m *Model) confirmKey(k tea.KeyPressMsg) tea.Cmd {
	m.mode = modeList
	if k.String() != "y" && k.String() != "Y" {
		m.setStatus("not stopped", nil)
		return nil
	}
	name := m.target
	return m.act("asking "+visible.Line(name)+" to shut down", func() (string, error) {
		return m.acts.Stop(m.ctx, name)
	})
}
