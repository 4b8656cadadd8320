package mailbox

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/paneteam/paneteam/internal/encoding/jsjson"
)

// Signer signs the entries a caller acting as the team's lead writes.
// The command line decides who acts as the lead (a process inside a
// teammate never does) and hands its inboxes a Signer; the inbox decides
// which entries need a signature: those SignsAs names (Claude Code,
// docs/PROTOCOL.md §11). paneteam's own Signer keeps an Ed25519 key per
// teammate and signs SignedEntry.Bytes.
type Signer interface {
	// LeadSig returns the lead_sig of e written to the inbox at path, or
	// "" when its owner holds no key of this signer (it was started
	// without one, by Claude Code's lead, or has left).
	LeadSig(inboxPath string, e SignedEntry) (string, error)
}

// SignsAs reports whether an entry from this sender is one Claude Code
// signs and a keyed teammate checks: from is exactly team-lead, user or
// system.
func SignsAs(from string) bool { return from == "team-lead" || from == "user" || from == "system" }

// signedTag opens every signed array (§11).
const signedTag = "claude-team-lead-entry-v1"

// SignedEntry is what a lead signature covers: the entry's msg_id, from,
// timestamp and text, and its summary, color and from_plugin, nil when the
// entry has none (JSON null in the signed bytes).
type SignedEntry struct {
	MsgID, From, Timestamp, Text string
	Summary, Color, FromPlugin   *string
}

// Bytes are the bytes a lead signs for e: the UTF-8 of the compact JSON
// array ["claude-team-lead-entry-v1", msg_id, from, timestamp, text,
// summary, color, from_plugin] exactly as JavaScript's JSON.stringify
// writes it (Claude Code, docs/PROTOCOL.md §11). A teammate
// started with --lead-verify-key checks an Ed25519 signature over them.
func (e SignedEntry) Bytes() []byte {
	b := make([]byte, 0, 64+len(e.Text)+len(e.MsgID)+len(e.From)+len(e.Timestamp))
	b = append(b, '[')
	b = jsjson.AppendString(b, signedTag)
	for _, s := range []string{e.MsgID, e.From, e.Timestamp, e.Text} {
		b = append(b, ',')
		b = jsjson.AppendString(b, s)
	}
	for _, p := range []*string{e.Summary, e.Color, e.FromPlugin} {
		b = append(b, ',')
		if p == nil {
			b = append(b, "null"...)
		} else {
			b = jsjson.AppendString(b, *p)
		}
	}
	return append(b, ']')
}

// SignedBy makes the inbox sign, with s, what it writes as the lead; nil
// writes unsigned. It returns the inbox, for chaining.
func (in *Inbox) SignedBy(s Signer) *Inbox {
	in.Signer = s
	return in
}

// prepare gives a new entry what Claude Code gives its own (msgV, a
// fresh msg_id, type; docs/PROTOCOL.md §7) and, when the inbox signs and
// the entry speaks as the lead, its lead_sig.
func (in *Inbox) prepare(m *Message) error {
	m.Read, m.at = false, 0
	if m.MsgV == 0 {
		m.MsgV = EntryVersion
	}
	if m.MsgID == "" {
		m.MsgID = NewMsgID()
	}
	if m.Type == "" {
		m.Type = EntryType
	}
	if m.Timestamp == "" {
		// A library caller that leaves the time out gets the moment of
		// sending, as Claude Code writes it: an empty timestamp sorts
		// before every other entry and reads as the zero time.
		m.Timestamp = Timestamp(time.Now())
	}
	if in.Signer == nil || !SignsAs(m.From) {
		return nil
	}
	sig, err := in.Signer.LeadSig(in.Path, EntryOf(*m))
	if err != nil {
		return fmt.Errorf("sign the message to %s: %w", in.Path, err)
	}
	m.LeadSig = sig
	return nil
}

// EntryOf is what a lead signature of m covers. Summary, color and
// from_plugin are written only when non-empty, so empty ones are absent
// (null) in the signed bytes too.
func EntryOf(m Message) SignedEntry {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return SignedEntry{MsgID: m.MsgID, From: m.From, Timestamp: m.Timestamp, Text: m.Text,
		Summary: opt(m.Summary), Color: opt(m.Color), FromPlugin: opt(m.FromPlugin)}
}

// NewMsgID is a random (version 4) UUID, as Claude Code's msg_id. An
// identifier, not a secret: math/rand/v2's generator (ChaCha8, seeded from
// the operating system at start) makes unique ones without the getrandom
// call and watchdog timer crypto/rand costs every send.
func NewMsgID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
