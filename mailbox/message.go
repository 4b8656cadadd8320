// Package mailbox reads and writes agent inboxes: one JSON array of
// messages per agent at teams/<team>/inboxes/<agent>.json, shared with
// Claude Code. Every change goes through Claude Code's lock and is written
// atomically, so Claude Code's unlocked poller never sees a torn file.
package mailbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
)

// Message is one inbox entry. Protocol messages carry a JSON object in Text
// (see Parse).
//
// Claude Code (docs/PROTOCOL.md §6, §7) adds msgV, msg_id and
// type to every entry it writes, and lead_sig to signed ones; paneteam
// writes them too (see prepare). Its schema checks from, text and
// timestamp (strings), read (boolean), color, summary, from_plugin and
// type (strings when present); msgV, msg_id and lead_sig are not checked,
// so an entry holding an odd value there still decodes (see UnmarshalJSON).
type Message struct {
	From       string `json:"from"`
	Text       string `json:"text"`
	Summary    string `json:"summary,omitempty"`
	Timestamp  string `json:"timestamp"`
	Color      string `json:"color,omitempty"`
	MsgV       int    `json:"msgV,omitempty"`
	MsgID      string `json:"msg_id,omitempty"`
	Type       string `json:"type,omitempty"`
	Read       bool   `json:"read"`
	LeadSig    string `json:"lead_sig,omitempty"`
	FromPlugin string `json:"from_plugin,omitempty"`

	extra jsonx.Fields // keys paneteam does not know, and the order they were read in
	// at is the entry's place in the inbox it was read from, from 1 (0: a
	// new message), so that a rewrite keeps the entries it could not read
	// between the same neighbours (entries.go).
	at int
}

// EntryVersion is the msgV Claude Code writes (docs/PROTOCOL.md §7).
const EntryVersion = 1

// EntryType is the type of every inbox entry (a protocol message's own
// type lives in its text).
const EntryType = "message"

func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	err := jsonx.Unmarshal(b, (*plain)(m), &m.extra)
	if err == nil {
		keepEmpty(b, m)
		return nil
	}
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	// A field Claude Code does not check (msgV, msg_id, lead_sig) or one
	// only provenance reads holds an unexpected JSON type: decode the
	// fields paneteam needs, as before 2.1.330, and keep every other member
	// as it was written, so the entry survives a rewrite untouched.
	var l struct {
		From      string `json:"from"`
		Text      string `json:"text"`
		Summary   string `json:"summary,omitempty"`
		Timestamp string `json:"timestamp"`
		Color     string `json:"color,omitempty"`
		Read      bool   `json:"read"`
	}
	if jsonx.Unmarshal(b, &l, &m.extra) != nil {
		return err
	}
	*m = Message{From: l.From, Text: l.Text, Summary: l.Summary, Timestamp: l.Timestamp, Color: l.Color, Read: l.Read, extra: m.extra}
	return nil
}

func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	return jsonx.MarshalWith(plain(m), m.extra)
}

// Extra returns the raw value of an inbox entry's key Message does not
// know (a newer Claude Code's, or another tool's); a rewrite keeps them.
func (m *Message) Extra(key string) (json.RawMessage, bool) { return m.extra.Get(key) }

// SetExtra stores a raw value under an entry's key Message does not know;
// a new key is written after those that were read.
func (m *Message) SetExtra(key string, v json.RawMessage) { m.extra.Set(key, v) }

// signedOptional are the optional members a lead signature covers.
var signedOptional = []string{"summary", "color", "from_plugin"}

// keepEmpty keeps an empty summary, color or from_plugin that was read: a
// lead signature covers "" and an absent member differently (null), so a
// rewrite that dropped it would turn a signed entry into a forged one.
func keepEmpty(b []byte, m *Message) {
	if (m.Summary != "" && m.Color != "" && m.FromPlugin != "") || !bytes.Contains(b, []byte(`""`)) {
		return
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(b, &raw) != nil {
		return
	}
	for _, k := range signedOptional {
		if v, ok := raw[k]; ok && string(v) == `""` {
			m.extra.Set(k, v)
		}
	}
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

// ErrNoSender is a message with no From: every entry names who wrote it.
var ErrNoSender = errors.New("message has no sender")

// Validate refuses what would not survive the trip through JSON unchanged.
func (m Message) Validate() error {
	if m.From == "" {
		return ErrNoSender
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
