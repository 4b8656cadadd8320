// Package provenance signs what paneteam writes as a team's lead to the
// Claude Code teammates it starts, the way Claude Code's own lead
// does (docs/PROTOCOL.md §11), keeps the private keys for that, and
// computes the digests that bind a permission or plan answer to its request
// (§9).
//
// Trust model: a Claude Code teammate started with --lead-verify-key
// believes an inbox entry from "team-lead", "user" or "system" only when its
// lead_sig verifies under that key; anything else speaking with those
// names is shown to its model as verified="false" and its protocol
// actions (shutdown, permission and plan answers) are refused. So the key
// pair is made per launch, the private half never leaves this machine's
// state folder (outside the Claude config folder, which teammates can
// read), and only a caller acting as the lead signs.
package provenance

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/paneteam/paneteam/mailbox"
)

// Entry is what a lead signature covers; it is mailbox's, which an inbox
// hands its Signer.
type Entry = mailbox.SignedEntry

// Key is one teammate's signing key and the moment its public half was
// stamped for the teammate's command line.
type Key struct {
	Private ed25519.PrivateKey
	// Stamp is the <ms> of --lead-verify-key: epoch milliseconds when the
	// command line was built. The teammate accepts no entry stamped earlier
	// than two minutes before that (§11).
	Stamp int64
}

// NewKey makes a fresh key pair stamped at now.
func NewKey(now time.Time) (*Key, error) {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, fmt.Errorf("make a signing key: %w", err)
	}
	return &Key{Private: priv, Stamp: now.UnixMilli()}, nil
}

// KeyFromSeed rebuilds a key from its 32-byte seed.
func KeyFromSeed(seed []byte, stamp int64) (*Key, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("signing key seed has %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	return &Key{Private: ed25519.NewKeyFromSeed(seed), Stamp: stamp}, nil
}

// spkiPrefix is the DER of an Ed25519 SubjectPublicKeyInfo up to the key
// itself (RFC 8410: SEQUENCE { SEQUENCE { OID 1.3.101.112 } BIT STRING }):
// the public key is these 12 bytes and its 32 (docs/PROTOCOL.md §11).
// Written out rather than through crypto/x509, which would bring package
// net, and with it dynamic linking, into every paneteam process.
var spkiPrefix = [...]byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}

// PublicKey is the unpadded base64url of the key's SPKI DER public key,
// as --lead-verify-key carries it.
func (k *Key) PublicKey() string {
	der := append(spkiPrefix[:len(spkiPrefix):len(spkiPrefix)], k.Private.Public().(ed25519.PublicKey)...)
	return base64.RawURLEncoding.EncodeToString(der)
}

// Flag is the value of --lead-verify-key: "<ms>.<key>".
func (k *Key) Flag() string { return strconv.FormatInt(k.Stamp, 10) + "." + k.PublicKey() }

// AcceptWindow is how far before the key's stamp a teammate still accepts
// a signed entry's timestamp (§11: floor = process start − 120 000 ms while
// the process started within 120 000 ms of the stamp).
const AcceptWindow = 120 * time.Second

// ErrTooOld is returned for an entry stamped before the teammate's window.
var ErrTooOld = errors.New("the entry's timestamp is older than the teammate's launch allows")

// Sign returns the lead_sig of e: unpadded base64url of the Ed25519
// signature of e.Bytes(). An entry without a msg_id or stamped before
// the teammate would accept it is refused, since the teammate would call
// it forged.
func (k *Key) Sign(e Entry) (string, error) {
	if e.MsgID == "" {
		return "", errors.New("sign an entry: it has no msg_id")
	}
	if !mailbox.SignsAs(e.From) {
		return "", fmt.Errorf("sign an entry from %q: only team-lead, user and system entries are signed", e.From)
	}
	t, err := time.Parse(time.RFC3339Nano, e.Timestamp)
	if err != nil {
		return "", fmt.Errorf("sign an entry: timestamp %q does not parse: %w", e.Timestamp, err)
	}
	if t.UnixMilli() < k.Stamp-AcceptWindow.Milliseconds() {
		return "", fmt.Errorf("sign an entry stamped %s: %w (key stamped %s); stamp it now",
			e.Timestamp, ErrTooOld, time.UnixMilli(k.Stamp).UTC().Format(time.RFC3339))
	}
	return base64.RawURLEncoding.EncodeToString(ed25519.Sign(k.Private, e.Bytes())), nil
}

var flagPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)\.([\w-]+)$`) })

// Verify checks sig over e against a --lead-verify-key value, as a
// teammate does (replay and time checks aside).
func Verify(flag string, e Entry, sig string) error {
	pub, _, err := parseFlag(flag)
	if err != nil {
		return err
	}
	return verify(pub, e, sig)
}

// parseFlag reads a --lead-verify-key value: the Ed25519 public key and
// its stamp (epoch milliseconds).
func parseFlag(flag string) (ed25519.PublicKey, int64, error) {
	m := flagPattern().FindStringSubmatch(flag)
	if m == nil {
		return nil, 0, fmt.Errorf("%q is not a --lead-verify-key value (<ms>.<base64url key>)", flag)
	}
	stamp, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("lead verify key stamp: %w", err)
	}
	der, err := base64.RawURLEncoding.DecodeString(m[2])
	if err != nil {
		return nil, 0, fmt.Errorf("lead verify key: %w", err)
	}
	if len(der) != len(spkiPrefix)+ed25519.PublicKeySize || !bytes.Equal(der[:len(spkiPrefix)], spkiPrefix[:]) {
		return nil, 0, errors.New("lead verify key is not an Ed25519 public key (SPKI DER)")
	}
	return ed25519.PublicKey(der[len(spkiPrefix):]), stamp, nil
}

func verify(pub ed25519.PublicKey, e Entry, sig string) error {
	s, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return fmt.Errorf("lead_sig: %w", err)
	}
	if !ed25519.Verify(pub, e.Bytes(), s) {
		return errors.New("lead_sig does not verify")
	}
	return nil
}
