package mailbox

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/paneteam/paneteam/internal/protocol/provenance"
)

// Signer signs the entries a caller acting as the team's lead writes.
// The command line decides who acts as the lead (a process inside a
// teammate never does) and hands its inboxes a Signer; the inbox decides
// which entries need a signature: those whose from is exactly team-lead,
// user or system (Claude Code 2.1.330, docs/PROTOCOL.md §11).
// provenance.Lead is the Signer paneteam uses.
type Signer interface {
	// LeadSig returns the lead_sig of e written to the inbox at path, or
	// "" when its owner holds no key of this signer (it was started
	// without one, by Claude Code's lead, or has left).
	LeadSig(inboxPath string, e provenance.Entry) (string, error)
}

// SignedBy makes the inbox sign, with s, what it writes as the lead; nil
// writes unsigned. It returns the inbox, for chaining.
func (in *Inbox) SignedBy(s Signer) *Inbox {
	in.Signer = s
	return in
}

// prepare gives a new entry what Claude Code 2.1.330 gives its own
// (msgV, a fresh msg_id, type) and, when the inbox signs and the entry
// speaks as the lead, its lead_sig.
func (in *Inbox) prepare(m *Message) error {
	m.Read = false
	if m.MsgV == 0 {
		m.MsgV = EntryVersion
	}
	if m.MsgID == "" {
		m.MsgID = NewMsgID()
	}
	if m.Type == "" {
		m.Type = EntryType
	}
	if in.Signer == nil || !provenance.SignsAs(m.From) {
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
func EntryOf(m Message) provenance.Entry {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return provenance.Entry{MsgID: m.MsgID, From: m.From, Timestamp: m.Timestamp, Text: m.Text,
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
