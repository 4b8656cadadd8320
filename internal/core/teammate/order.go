package teammate

import (
	"slices"
	"strings"

	"github.com/paneteam/paneteam/mailbox"
)

// Order returns msgs in the order a teammate handles them: shutdown
// requests first (a lead waiting to stop the team must not wait behind
// work), then messages from the lead, then messages from peers; arrival
// order within each group.
func Order(msgs []mailbox.Message, lead string) []mailbox.Message {
	// Rank each message once: ranking parses the text as JSON, too dear
	// to repeat in every comparison of the sort.
	type ranked struct {
		m    mailbox.Message
		rank int
	}
	rs := make([]ranked, len(msgs))
	for i, m := range msgs {
		rs[i] = ranked{m, rank(m, lead)}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return a.rank - b.rank })
	out := make([]mailbox.Message, len(rs))
	for i, r := range rs {
		out[i] = r.m
	}
	return out
}

func rank(m mailbox.Message, lead string) int {
	if p, ok := mailbox.Parse(m.Text); ok && p.Type == mailbox.TypeShutdownRequest {
		return 0
	}
	if strings.EqualFold(m.From, lead) {
		return 1
	}
	return 2
}

// Bracketed paste markers (xterm "bracketed paste mode", DEC private mode
// 2004): a program that turned the mode on receives pasted text between
// them and treats newlines inside as text, not as Enter.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// Keystrokes turns a message's text into what is typed into a program,
// without the final Enter. Newlines are typed as a terminal pastes them
// (carriage returns); with bracketed paste on, a multi-line text is sent
// as one paste so that it arrives as one input. Control characters other
// than tab and newline are dropped: a message must not be able to press
// Ctrl-C in the teammate's program or end the paste early with its own
// escape sequence.
func Keystrokes(text string, bracketed bool) []byte {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == '\n':
			b.WriteByte('\r')
		case r == '\t' || r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0):
			b.WriteRune(r)
		}
	}
	s := strings.TrimRight(b.String(), "\r")
	if bracketed && strings.Contains(s, "\r") {
		s = pasteStart + s + pasteEnd
	}
	return []byte(s)
}
