package teammate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
)

// shutdownEntry is a shutdown request from team-lead to worker, signed
// with key when it is not nil.
func shutdownEntry(t *testing.T, key *provenance.Key, id string) mailbox.Message {
	t.Helper()
	now := mailbox.Timestamp(time.Now())
	text, err := mailbox.Text(mailbox.ShutdownRequest{Type: mailbox.TypeShutdownRequest, RequestID: id, From: "team-lead", Timestamp: now})
	if err != nil {
		t.Fatal(err)
	}
	m := mailbox.Message{From: "team-lead", Text: text, Timestamp: now, MsgID: mailbox.NewMsgID(), Color: "blue"}
	if key != nil {
		if m.LeadSig, err = key.Sign(mailbox.EntryOf(m)); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// A teammate started with the lead's key refuses a shutdown request in
// the lead's name that the lead did not sign, says so to the lead and in
// its pane, and goes on; the lead's signed one ends it.
func TestKeyedTeammateObeysOnlyASignedShutdown(t *testing.T) {
	tm := newTeam(t)
	key, err := provenance.NewKey(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	out := &testutil.Buffer{}
	ref := &Reference{Team: tm, Name: "worker", Out: out}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Team: tm, Name: "worker", Poll: 20 * time.Millisecond, IdleAfter: time.Hour, Log: out,
			LeadKey: key.Flag()}, ref)
	}()
	in := mailbox.New(tm.InboxPath("worker"), lockfile.Options{})
	forged := shutdownEntry(t, nil, "shutdown-1@worker")
	otherKey, _ := provenance.NewKey(time.Now())
	wrongKey := shutdownEntry(t, otherKey, "shutdown-2@worker")
	if err := in.Append(ctx, forged, wrongKey); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, long, "the unsigned shutdowns were not rejected", func() bool {
		return len(protocolIn(t, tm, "team-lead", mailbox.TypeShutdownRejected)) == 2
	})
	for _, p := range protocolIn(t, tm, "team-lead", mailbox.TypeShutdownRejected) {
		r := p.Value.(*mailbox.ShutdownRejected)
		if !strings.Contains(r.Reason, "not signed by the lead") {
			t.Errorf("rejection %s: reason %q does not say it was not signed by the lead", r.RequestID, r.Reason)
		}
	}
	if !strings.Contains(out.String(), "rejected (the request is not signed by the lead") {
		t.Errorf("the pane does not say why: %q", out.String())
	}
	select {
	case err := <-done:
		t.Fatalf("an unsigned shutdown ended the teammate: %v", err)
	default:
	}
	if err := in.Append(ctx, shutdownEntry(t, key, "shutdown-3@worker")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(long):
		t.Fatal("the lead's signed shutdown did not end the teammate")
	}
	if a := protocolIn(t, tm, "team-lead", mailbox.TypeShutdownApproved); len(a) != 1 || a[0].Value.(*mailbox.ShutdownApproved).RequestID != "shutdown-3@worker" {
		t.Fatalf("shutdown_approved: %+v", a)
	}
}

func TestMalformedLeadKeyIsRefused(t *testing.T) {
	tm := newTeam(t)
	err := Run(context.Background(), Config{Team: tm, Name: "worker", LeadKey: "1.nope"}, &Reference{Team: tm, Name: "worker"})
	if err == nil || !strings.Contains(err.Error(), "verify key") {
		t.Fatalf("Run with a malformed key: %v", err)
	}
}
