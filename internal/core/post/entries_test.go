package post_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// TestAskShutdownIsSignedAndMatchable: the shutdown request every front
// end and the budget guard write is Claude Code's frame, from the lead,
// signed for a keyed teammate, with the id its answer is matched by.
func TestAskShutdownIsSignedAndMatchable(t *testing.T) {
	tm, cfg := paneteamTeam(t)
	var warned []string
	lead := caller(&warned, "PANETEAM_STATE_DIR="+t.TempDir())
	keys, err := lead.Keys()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Create(tm.InboxPath("alice"), time.Now()); err != nil {
		t.Fatal(err)
	}
	p := &post.Post{Team: tm, From: team.LeadName, Signer: lead.Signer(), Config: cfg}
	at := time.Now()
	id, err := p.AskShutdown(context.Background(), "alice", "work is merged", at)
	if err != nil || id != fmt.Sprintf("shutdown-%d@alice", at.UnixMilli()) {
		t.Fatalf("AskShutdown: %q, %v", id, err)
	}
	msgs, _ := mailbox.New(tm.InboxPath("alice"), lockfile.Options{}).ReadAll()
	if len(msgs) != 1 || msgs[0].From != team.LeadName || msgs[0].LeadSig == "" {
		t.Fatalf("alice's inbox %+v, want one signed entry from team-lead", msgs)
	}
	f, _ := mailbox.Parse(msgs[0].Text)
	req, ok := f.Value.(*mailbox.ShutdownRequest)
	if !ok || req.RequestID != id || req.Reason != "work is merged" || req.From != team.LeadName {
		t.Errorf("the frame: %+v", f.Value)
	}
	if got, err := (provenance.Lead{Store: keys}).LeadSig(tm.InboxPath("alice"), mailbox.EntryOf(msgs[0])); err != nil || got != msgs[0].LeadSig {
		t.Errorf("the signature does not verify as the lead's")
	}
}

// TestAsWritesInTheTeammatesName: a teammate's own post (its hook, its
// guard) is from it, in its colour, never signed, to the inbox
// leadAgentId names.
func TestAsWritesInTheTeammatesName(t *testing.T) {
	tm, cfg := paneteamTeam(t)
	cfg.LeadAgentID = "boss@" + tm.Name
	p := post.As(tm, cfg, lockfile.Options{}, "bob")
	if p.Lead() != "boss" {
		t.Errorf("the lead is %q, want boss (leadAgentId)", p.Lead())
	}
	if _, err := p.SendLead(context.Background(), mailbox.Message{Text: "stopped over budget"}); err != nil {
		t.Fatal(err)
	}
	msgs, _ := mailbox.New(tm.InboxPath("boss"), lockfile.Options{}).ReadAll()
	if len(msgs) != 1 || msgs[0].From != "bob" || msgs[0].Color != "green" || msgs[0].LeadSig != "" || msgs[0].Timestamp == "" {
		t.Errorf("boss's inbox %+v, want one unsigned, stamped entry from bob in green", msgs)
	}
	if p := post.As(tm, nil, lockfile.Options{}, "bob"); p.Color != "" || p.Lead() != team.LeadName {
		t.Errorf("with no config: colour %q, lead %q", p.Color, p.Lead())
	}
}
