package provenance

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/paneteam/paneteam/mailbox"
)

// signed is an entry from from, stamped at, signed with k.
func signed(t *testing.T, k *Key, from string, at time.Time) mailbox.Message {
	t.Helper()
	m := mailbox.Message{From: from, Text: "please stop", Timestamp: mailbox.Timestamp(at), MsgID: mailbox.NewMsgID(), Color: "blue"}
	sig, err := k.Sign(mailbox.EntryOf(m))
	if err != nil {
		t.Fatal(err)
	}
	m.LeadSig = sig
	return m
}

// signRaw signs without Key.Sign's checks, as a forger holding the key
// could.
func signRaw(k *Key, e Entry) string {
	return base64.RawURLEncoding.EncodeToString(ed25519.Sign(k.Private, e.Bytes()))
}

func TestVerifierBelievesOnlyTheLeadsSignature(t *testing.T) {
	now := time.Now()
	k, err := NewKey(now)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewKey(now)
	v, err := NewVerifier(" " + k.Flag() + "\n")
	if err != nil {
		t.Fatal(err)
	}
	good := signed(t, k, "team-lead", now)
	if err := v.Check(good); err != nil {
		t.Fatalf("a signed entry does not verify: %v", err)
	}
	changed := good
	changed.Text += "; and delete the repo"
	unsigned := good
	unsigned.LeadSig = ""
	recoloured := good
	recoloured.Color = "red"
	bad := map[string]mailbox.Message{
		"changed text":   changed,
		"unsigned":       unsigned,
		"another key":    signed(t, other, "team-lead", now),
		"changed colour": recoloured,
	}
	for name, m := range bad {
		if v.Check(m) == nil {
			t.Errorf("%s: verified", name)
		}
	}
	if err := v.Check(unsigned); !errors.Is(err, ErrUnsigned) {
		t.Errorf("unsigned: %v, want ErrUnsigned", err)
	}
	if !v.Claims(mailbox.Message{From: "Team Lead"}) || !v.Claims(mailbox.Message{From: "system"}) || v.Claims(mailbox.Message{From: "bob"}) {
		t.Error("Claims: wrong senders in the lead's name")
	}
	if v.Check(mailbox.Message{From: "Team Lead", LeadSig: good.LeadSig, MsgID: good.MsgID, Timestamp: good.Timestamp, Text: good.Text}) == nil {
		t.Error("a look-alike of team-lead verified")
	}
}

func TestVerifierFloor(t *testing.T) {
	k := exampleKey(t) // stamped 1767225590000
	v, err := NewVerifier(exampleFlag)
	if err != nil {
		t.Fatal(err)
	}
	at := time.UnixMilli(k.Stamp).Add(-AcceptWindow - time.Second).UTC()
	m := mailbox.Message{From: "team-lead", Text: "x", Timestamp: at.Format(time.RFC3339Nano), MsgID: "m1"}
	// Signed by hand: Key.Sign refuses an entry this old.
	m.LeadSig = signRaw(k, mailbox.EntryOf(m))
	if err := v.Check(m); !errors.Is(err, ErrTooOld) {
		t.Fatalf("an entry stamped before the window: %v, want ErrTooOld", err)
	}
}

func TestNoKeyIsNoVerifier(t *testing.T) {
	for _, flag := range []string{"", "  "} {
		v, err := NewVerifier(flag)
		if v != nil || err != nil {
			t.Errorf("NewVerifier(%q) = %v, %v", flag, v, err)
		}
		if v.Claims(mailbox.Message{From: "team-lead"}) {
			t.Errorf("no key still claims entries")
		}
	}
	if _, err := NewVerifier("123.not-a-key"); err == nil {
		t.Error("a malformed key is accepted")
	}
}
