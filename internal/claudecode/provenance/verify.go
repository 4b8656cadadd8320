package provenance

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// EnvLeadVerifyKey carries a --lead-verify-key value to what paneteam runs
// as a teammate that is not Claude Code (the teammate loop of an agent
// CLI, its MCP server). Set, that teammate believes an entry in the lead's
// name only when it is signed with this key, as a keyed Claude Code
// teammate does; empty or unset, nothing is checked, as for a keyless one.
const EnvLeadVerifyKey = "PANETEAM_LEAD_VERIFY_KEY"

// ErrUnsigned is returned for an entry in the lead's name that carries no
// lead_sig at all.
var ErrUnsigned = errors.New("it carries no lead_sig")

// Verifier checks the inbox entries of one teammate started with a key,
// by the rules of docs/PROTOCOL.md §11.
type Verifier struct {
	pub ed25519.PublicKey
	// floor is the oldest timestamp (epoch ms) a signed entry may carry:
	// the key's stamp less AcceptWindow, the same bound Key.Sign keeps. It
	// does not move with the process's start, so a teammate's MCP server
	// started again later still believes the signed first prompt.
	floor int64
}

// NewVerifier reads a --lead-verify-key value. An empty one (after
// trimming) is no key: it returns nil, and a nil Verifier checks nothing.
func NewVerifier(flag string) (*Verifier, error) {
	flag = strings.TrimSpace(flag)
	if flag == "" {
		return nil, nil
	}
	pub, stamp, err := parseFlag(flag)
	if err != nil {
		return nil, err
	}
	return &Verifier{pub: pub, floor: stamp - AcceptWindow.Milliseconds()}, nil
}

// Claims reports whether m speaks in the lead's name and so must be
// signed to be believed: its sender normalises to team-lead, user or
// system (team.IsLeadSender), so "Team Lead" claims it too, though only
// the exact names are ever signed. A nil Verifier (no key) holds nothing
// to check, and reports false.
func (v *Verifier) Claims(m mailbox.Message) bool {
	return v != nil && team.IsLeadSender(m.From)
}

// Check returns nil when m carries a valid lead_sig under the key, else
// why it does not. The caller decides what an unverified entry costs; a
// teammate does not remember msg_ids across entries (a signed entry
// copied again into the same inbox is the lead's own words a second time).
func (v *Verifier) Check(m mailbox.Message) error {
	if v == nil {
		return errors.New("this teammate has no lead verify key")
	}
	if !mailbox.SignsAs(m.From) {
		return fmt.Errorf("the lead signs only as exactly team-lead, user or system, not as %q", m.From)
	}
	if m.LeadSig == "" {
		return ErrUnsigned
	}
	if m.MsgID == "" {
		return errors.New("it has no msg_id")
	}
	t, err := time.Parse(time.RFC3339Nano, m.Timestamp)
	if err != nil {
		return fmt.Errorf("its timestamp %q does not parse", m.Timestamp)
	}
	if t.UnixMilli() < v.floor {
		return ErrTooOld
	}
	return verify(v.pub, mailbox.EntryOf(m), m.LeadSig)
}
