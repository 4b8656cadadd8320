// Package mailbox reads and writes agent inboxes: one JSON array of
// messages per agent at teams/<team>/inboxes/<agent>.json, shared with
// Claude Code. Every change goes through Claude Code's lock and is written
// atomically, so Claude Code's unlocked poller never sees a torn file.
package mailbox

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/paneteam/paneteam/internal/jsonx"
)

// Message is one inbox entry. Protocol messages carry a JSON object in Text
// (see Parse).
type Message struct {
	From      string `json:"from"`
	Text      string `json:"text"`
	Summary   string `json:"summary,omitempty"`
	Timestamp string `json:"timestamp"`
	Color     string `json:"color,omitempty"`
	Read      bool   `json:"read"`

	Fields jsonx.Fields `json:"-"`
}

func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	return jsonx.Unmarshal(b, (*plain)(m), &m.Fields)
}

func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	return jsonx.MarshalWith(plain(m), m.Fields)
}

// TimeLayout is Claude Code's timestamp: ISO-8601, UTC, milliseconds, Z
// (JavaScript's Date.prototype.toISOString).
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Timestamp formats t the way Claude Code does.
func Timestamp(t time.Time) string { return t.UTC().Format(TimeLayout) }

// Time parses a message timestamp; the zero time when it does not parse.
func (m Message) Time() time.Time {
	t, err := time.Parse(time.RFC3339Nano, m.Timestamp)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Validate refuses what would not survive the trip through JSON unchanged.
func (m Message) Validate() error {
	if m.From == "" {
		return fmt.Errorf("message has no sender: give --from or set PANETEAM_AGENT")
	}
	for _, f := range []struct{ name, v string }{{"text", m.Text}, {"summary", m.Summary}, {"from", m.From}} {
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("message %s is not valid UTF-8: convert it first (for example with iconv -t UTF-8)", f.name)
		}
	}
	return nil
}

// messageKey identifies a delivery: an inbox has no message ids, so
// sender, time (to the millisecond), text and summary do.
type messageKey struct{ from, timestamp, text, summary string }

func keyOf(m Message) messageKey { return messageKey{m.From, m.Timestamp, m.Text, m.Summary} }

// same reports whether two messages are the same delivery.
func same(a, b Message) bool { return keyOf(a) == keyOf(b) }
