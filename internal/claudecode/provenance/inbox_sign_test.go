package provenance_test

// Signing an inbox's entries as the lead, end to end: mailbox writes,
// provenance signs, and the signatures verify as a keyed teammate checks
// them.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/encoding/jsjson"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

func entries(t *testing.T, path string) []*jsjson.Object {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsjson.Parse(b)
	if err != nil {
		t.Fatalf("inbox does not parse: %v\n%s", err, b)
	}
	var out []*jsjson.Object
	for _, e := range v.([]any) {
		out = append(out, e.(*jsjson.Object))
	}
	return out
}

func str(o *jsjson.Object, k string) (string, bool) {
	v, ok := o.Get(k)
	s, isStr := v.(string)
	return s, ok && isStr
}

func signInbox(t *testing.T) *mailbox.Inbox {
	t.Helper()
	return mailbox.New(filepath.Join(t.TempDir(), "inboxes", "alice.json"), lockfile.Options{Timeout: 5 * time.Second})
}

func signingSetup(t *testing.T) (*mailbox.Inbox, provenance.Store, *provenance.Key) {
	t.Helper()
	in := signInbox(t)
	store := provenance.Store{Dir: filepath.Join(t.TempDir(), "keys")}
	k, err := store.Create(in.Path, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return in.SignedBy(provenance.Lead{Store: store}), store, k
}

func TestLeadEntriesAreSigned(t *testing.T) {
	in, _, k := signingSetup(t)
	ctx := context.Background()
	now := mailbox.Timestamp(time.Now())
	writes := []mailbox.Message{
		{From: "team-lead", Text: "prompt with \u2028 <tags> & \"quotes\" \x01", Timestamp: now},
		{From: "user", Text: "from the user", Timestamp: now, Summary: "sum", Color: "blue"},
		{From: "system", Text: "sys", Timestamp: now},
		{From: "alice", Text: "a teammate is never signed", Timestamp: now},
		{From: "Team-Lead", Text: "only the exact names are signed", Timestamp: now},
	}
	if err := in.Append(ctx, writes[0]); err != nil {
		t.Fatal(err)
	}
	for _, m := range writes[1:] {
		if err := in.Send(ctx, m); err != nil { // the spooled, spliced path
			t.Fatal(err)
		}
	}
	es := entries(t, in.Path)
	if len(es) != len(writes) {
		t.Fatalf("%d entries", len(es))
	}
	for i, e := range es {
		sig, signed := str(e, "lead_sig")
		if want := mailbox.SignsAs(writes[i].From); signed != want {
			t.Errorf("%s: signed %v, want %v", writes[i].From, signed, want)
			continue
		}
		if !signed {
			continue
		}
		var pe mailbox.SignedEntry
		pe.MsgID, _ = str(e, "msg_id")
		pe.From, _ = str(e, "from")
		pe.Timestamp, _ = str(e, "timestamp")
		pe.Text, _ = str(e, "text")
		for key, p := range map[string]**string{"summary": &pe.Summary, "color": &pe.Color, "from_plugin": &pe.FromPlugin} {
			if s, ok := str(e, key); ok {
				*p = &s
			}
		}
		if err := provenance.Verify(k.Flag(), pe, sig); err != nil {
			t.Errorf("%s: %v", writes[i].From, err)
		}
	}
}

func TestNoSignatureWithoutKeyOrSigner(t *testing.T) {
	in, store, _ := signingSetup(t)
	ctx := context.Background()
	// The same key, but an inbox not handed a signer (a caller that does
	// not act as the lead).
	plain := mailbox.New(in.Path, in.Lock)
	if err := plain.Send(ctx, msg("team-lead", "unsigned")); err != nil {
		t.Fatal(err)
	}
	// A signer, but the recipient holds no key (it left: Forget).
	if err := store.Forget(in.Path); err != nil {
		t.Fatal(err)
	}
	if err := in.Send(ctx, msg("team-lead", "no key")); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries(t, in.Path) {
		if _, ok := e.Get("lead_sig"); ok {
			text, _ := str(e, "text")
			t.Errorf("%q was signed", text)
		}
	}
}

func TestSigningRefusesStaleTimestamp(t *testing.T) {
	in, _, _ := signingSetup(t)
	old := msg("team-lead", "from before the launch")
	old.Timestamp = mailbox.Timestamp(time.Now().Add(-10 * time.Minute))
	err := in.Append(context.Background(), old)
	if err == nil || !strings.Contains(err.Error(), "older") {
		t.Fatalf("stale entry: %v", err)
	}
	if got, _ := in.ReadAll(); len(got) != 0 {
		t.Errorf("a refused entry was written: %v", got)
	}
}

func TestRewriteKeepsClaudeSignatures(t *testing.T) {
	in := signInbox(t)
	os.MkdirAll(filepath.Dir(in.Path), 0o700)
	k, err := provenance.NewKey(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	empty := ""
	e := mailbox.SignedEntry{MsgID: mailbox.NewMsgID(), From: "team-lead", Timestamp: mailbox.Timestamp(time.Now()), Text: "signed by Claude \u2028 <x>", Summary: &empty, Color: &empty}
	sig, err := k.Sign(e)
	if err != nil {
		t.Fatal(err)
	}
	file := `[
  {
    "from": "team-lead",
    "text": ` + jsjson.Quote(e.Text) + `,
    "timestamp": "` + e.Timestamp + `",
    "summary": "",
    "color": "",
    "msgV": 1,
    "msg_id": "` + e.MsgID + `",
    "type": "message",
    "read": false,
    "lead_sig": "` + sig + `"
  }
]`
	os.WriteFile(in.Path, []byte(file), 0o600)
	if err := in.Append(context.Background(), msg("alice", "next")); err != nil { // the decoding path
		t.Fatal(err)
	}
	es := entries(t, in.Path)
	var got mailbox.SignedEntry
	got.MsgID, _ = str(es[0], "msg_id")
	got.From, _ = str(es[0], "from")
	got.Timestamp, _ = str(es[0], "timestamp")
	got.Text, _ = str(es[0], "text")
	for key, p := range map[string]**string{"summary": &got.Summary, "color": &got.Color, "from_plugin": &got.FromPlugin} {
		if s, ok := str(es[0], key); ok {
			*p = &s
		}
	}
	s, _ := str(es[0], "lead_sig")
	if err := provenance.Verify(k.Flag(), got, s); err != nil {
		b, _ := os.ReadFile(in.Path)
		t.Errorf("after a rewrite: %v\n%s", err, b)
	}
}

func msg(from, text string) mailbox.Message {
	return mailbox.Message{From: from, Text: text, Timestamp: mailbox.Timestamp(time.Now())}
}
