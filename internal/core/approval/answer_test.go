package approval

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// answerOne writes one request into the lead's inbox, answers it and
// returns the single entry that reached the teammate.
func answerOne(t *testing.T, frame string, d Decision) string {
	t.Helper()
	l := crew(t)
	writeInbox(t, l, entry("alice", frame, t0))
	rs := waiting(t, l)
	if len(rs) != 1 {
		t.Fatalf("waiting %q, want one", ids(rs))
	}
	d.Now = t0.Add(time.Minute)
	if _, err := l.Answer(context.Background(), rs[0].ID, "", d); err != nil {
		t.Fatal(err)
	}
	got := inbox(t, l, "alice")
	if len(got) != 1 {
		t.Fatalf("alice's inbox holds %d entries, want the one answer", len(got))
	}
	m := got[0]
	if m.From != "team-lead" || m.Color != "" || m.Read || m.Timestamp != "2026-01-01T00:01:00.000Z" {
		t.Fatalf("answer entry %+v: want from team-lead, no colour, unread, stamped now", m)
	}
	return m.Text
}

func TestApprovedToolCallIsBoundToTheRequest(t *testing.T) {
	got := answerOne(t, permFrame(permID, "alice", "Bash", exampleInput), Decision{Approve: true})
	want := `{"type":"permission_response","request_id":"perm-1767225600000-abc1234","subtype":"success",` +
		`"tool_use_id":"toolu_01","approved_request":{"tool_use_id":"toolu_01","tool_name":"Bash",` +
		`"input_digest":"` + exampleDigest + `"},"response":{"permission_updates":[]}}`
	if got != want {
		t.Fatalf("response\n got %s\nwant %s", got, want)
	}
}

func TestDeniedToolCallCarriesTheFeedbackAsError(t *testing.T) {
	bound := `"tool_use_id":"toolu_01","approved_request":{"tool_use_id":"toolu_01","tool_name":"Bash","input_digest":"` + exampleDigest + `"}`
	got := answerOne(t, permFrame(permID, "alice", "Bash", exampleInput), Decision{})
	if want := `{"type":"permission_response","request_id":"` + permID + `","subtype":"error",` + bound + `,"error":"Permission denied"}`; got != want {
		t.Fatalf("denial\n got %s\nwant %s", got, want)
	}
	got = answerOne(t, permFrame(permID, "alice", "Bash", exampleInput), Decision{Feedback: "use make test"})
	if !strings.HasSuffix(got, `,"error":"use make test"}`) {
		t.Fatalf("denial with feedback: %s", got)
	}
}

func TestAlwaysAddsTheAllowRuleTheRequestSuggests(t *testing.T) {
	sugg := `[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test:*"}],"behavior":"allow","destination":"localSettings"},` +
		`{"type":"setMode","mode":"acceptEdits","destination":"session"}]`
	frame := strings.Replace(permFrame(permID, "alice", "Bash", exampleInput), `"permission_suggestions":[]`, `"permission_suggestions":`+sugg, 1)
	got := answerOne(t, frame, Decision{Approve: true, Always: true})
	want := `"response":{"permission_updates":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test:*"}],"behavior":"allow","destination":"localSettings"}]}}`
	if !strings.HasSuffix(got, want) {
		t.Fatalf("response %s\nwant it to end %s", got, want)
	}

	l := crew(t)
	writeInbox(t, l, entry("alice", permFrame(permID, "alice", "Bash", exampleInput), t0))
	_, err := l.Answer(context.Background(), permID, "", Decision{Approve: true, Always: true})
	if err == nil || !strings.Contains(err.Error(), "suggests no \"always allow\" rule") {
		t.Fatalf("--always without a suggestion: %v", err)
	}
	if len(inbox(t, l, "alice")) != 0 {
		t.Fatal("a refused --always wrote an answer")
	}
}

func TestSandboxAnswerEchoesTheHost(t *testing.T) {
	got := answerOne(t, sandboxFrame("sandbox-1767225600000-k2j4h5g", "alice", "registry.npmjs.org"), Decision{Approve: true})
	want := `{"type":"sandbox_permission_response","requestId":"sandbox-1767225600000-k2j4h5g","host":"registry.npmjs.org","allow":true,"timestamp":"2026-01-01T00:01:00.000Z"}`
	if got != want {
		t.Fatalf("sandbox\n got %s\nwant %s", got, want)
	}
	got = answerOne(t, sandboxFrame("sandbox-1767225600000-k2j4h5g", "alice", "registry.npmjs.org"), Decision{})
	if !strings.Contains(got, `"allow":false`) {
		t.Fatalf("sandbox denial %s", got)
	}
}

func TestPlanAnswers(t *testing.T) {
	id := "plan_approval-1767225600000@alice@crew"
	got := answerOne(t, planFrame(id, "alice", examplePlan), Decision{Approve: true})
	want := `{"type":"plan_approval_response","requestId":"` + id + `","approved":true,"timestamp":"2026-01-01T00:01:00.000Z",` +
		`"permissionMode":"default","planDigest":"` + examplePlanD + `"}`
	if got != want {
		t.Fatalf("plan approval\n got %s\nwant %s", got, want)
	}
	got = answerOne(t, planFrame(id, "alice", examplePlan), Decision{Approve: true, Mode: "acceptEdits", Feedback: "go"})
	if !strings.Contains(got, `"feedback":"go"`) || !strings.Contains(got, `"permissionMode":"acceptEdits"`) {
		t.Fatalf("plan approval with mode: %s", got)
	}
	got = answerOne(t, planFrame(id, "alice", examplePlan), Decision{Feedback: "split step 2"})
	if want := `{"type":"plan_approval_response","requestId":"` + id + `","approved":false,"feedback":"split step 2","timestamp":"2026-01-01T00:01:00.000Z"}`; got != want {
		t.Fatalf("plan rejection\n got %s\nwant %s", got, want)
	}

	l := crew(t)
	writeInbox(t, l, entry("alice", planFrame(id, "alice", examplePlan), t0))
	for _, d := range []Decision{{Approve: true, Mode: "manual-ish"}, {Mode: "plan"}, {Approve: true, Always: true}} {
		if _, err := l.Answer(context.Background(), id, "", d); err == nil {
			t.Errorf("decision %+v was accepted", d)
		}
	}
	if len(inbox(t, l, "alice")) != 0 {
		t.Fatal("a refused decision wrote an answer")
	}
}

func TestRefusalsSayWhy(t *testing.T) {
	l := crew(t)
	writeInbox(t, l,
		entry("alice", permFrame("perm-1767225600000-aaaaaaa", "alice", "Bash", exampleInput), t0),
		entry("bob", permFrame("perm-1767225600000-bbbbbbb", "bob", "Bash", exampleInput), t0),
		entry("bob", permFrame("perm-1767225699999-ccccccc", "bob", "Bash", exampleInput), t0),
	)
	ctx := context.Background()
	_, err := l.Answer(ctx, "perm-999", "", Decision{Approve: true})
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), `no request "perm-999" is waiting for the lead of team crew`) {
		t.Errorf("unknown id: %v", err)
	}
	_, err = l.Answer(ctx, "perm-1767225600000", "", Decision{Approve: true})
	var amb *AmbiguousError
	if !errors.As(err, &amb) || !strings.Contains(err.Error(), "perm-1767225600000-aaaaaaa  alice") ||
		!strings.Contains(err.Error(), "perm-1767225600000-bbbbbbb  bob") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	// --from narrows a prefix to one teammate's request.
	if r, err := l.Answer(ctx, "perm-1767225600000", "bob", Decision{Approve: true}); err != nil || r.Request.ID != "perm-1767225600000-bbbbbbb" {
		t.Errorf("prefix with --from: %v %v", r.Request.ID, err)
	}
	// An answered request no longer takes part in prefix matching...
	if r, err := l.Answer(ctx, "perm-1767225", "", Decision{}); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("prefix after one answer: %v %v", r.Request.ID, err)
	}
	// ...and its full id is refused as answered.
	_, err = l.Answer(ctx, "perm-1767225600000-bbbbbbb", "", Decision{})
	if !errors.Is(err, ErrAnswered) || !strings.Contains(err.Error(), "approved at") {
		t.Errorf("answered: %v", err)
	}
	if n := len(inbox(t, l, "bob")); n != 1 {
		t.Fatalf("bob's inbox holds %d answers, want 1", n)
	}
	if _, err := l.Team.Update(ctx, lockfile.Options{}, func(c *team.Config) error { c.RemoveMember("alice"); return nil }); err != nil {
		t.Fatal(err)
	}
	_, err = l.Answer(ctx, "perm-1767225600000-aaaaaaa", "", Decision{Approve: true})
	if !errors.Is(err, ErrGone) {
		t.Errorf("teammate gone: %v", err)
	}
}

func TestConcurrentAnswersWriteOnce(t *testing.T) {
	l := crew(t)
	writeInbox(t, l, entry("alice", permFrame(permID, "alice", "Bash", exampleInput), t0))
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, errs[i] = l.Answer(context.Background(), permID, "", Decision{Approve: i%2 == 0})
		}(i)
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrAnswered):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if got := len(inbox(t, l, "alice")); ok != 1 || got != 1 {
		t.Fatalf("%d answers succeeded and alice got %d; want exactly one of each", ok, got)
	}
}

func TestClaudeLedTeamIsRefused(t *testing.T) {
	l := crew(t)
	if _, err := l.Team.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		c.SetExtra("leadProcess", []byte(`{"pid":4242,"pidSpace":"host#pid:[4026531836]","claimedAt":1767225600000}`))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	writeInbox(t, l, entry("alice", permFrame(permID, "alice", "Bash", exampleInput), t0))
	_, err := l.Answer(context.Background(), permID, "", Decision{Approve: true})
	if !errors.Is(err, ErrClaudeLeads) || !strings.Contains(err.Error(), "answer "+permID+" in that Claude Code session") {
		t.Fatalf("Claude-led team: %v", err)
	}
	if len(inbox(t, l, "alice")) != 0 {
		t.Fatal("an answer was written in a Claude-led team")
	}
}

// TestKeyedTeammateAnswersAreSigned: a teammate paneteam started with
// --lead-verify-key gets its answer signed with the key paneteam holds for
// it, and no answer at all when that key is gone (unsigned, it would count
// as forged: a denial).
func TestKeyedTeammateAnswersAreSigned(t *testing.T) {
	l := crew(t)
	ctx := context.Background()
	if _, err := l.Team.Update(ctx, lockfile.Options{}, func(c *team.Config) error {
		c.Member("alice").Paneteam = &team.MemberMeta{Keyed: true}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	writeInbox(t, l, entry("alice", permFrame(permID, "alice", "Bash", exampleInput), t0))
	l.Keys = provenance.Store{Dir: filepath.Join(t.TempDir(), "keys")}
	if _, err := l.Answer(ctx, permID, "", Decision{Approve: true, Now: time.Now()}); !errors.Is(err, ErrNoKey) {
		t.Fatalf("keyed teammate whose key is gone: %v, want ErrNoKey", err)
	}
	if len(inbox(t, l, "alice")) != 0 {
		t.Fatal("an unsigned answer was written to a keyed teammate")
	}

	key, err := l.Keys.Create(l.Team.InboxPath("alice"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Answer(ctx, permID, "", Decision{Approve: true, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	got := inbox(t, l, "alice")
	if len(got) != 1 || got[0].LeadSig == "" {
		t.Fatalf("alice's inbox %+v, want one signed answer", got)
	}
	m := got[0]
	e := provenance.Entry{MsgID: m.MsgID, From: m.From, Timestamp: m.Timestamp, Text: m.Text}
	if err := provenance.Verify(key.Flag(), e, m.LeadSig); err != nil {
		t.Fatalf("the answer's signature does not verify under alice's key: %v", err)
	}
}

// TestAnsweringMarksTheRequestRead: an answered request stops counting as
// the lead's unread mail; other messages stay unread.
func TestAnsweringMarksTheRequestRead(t *testing.T) {
	l := crew(t)
	writeInbox(t, l,
		entry("alice", permFrame(permID, "alice", "Bash", exampleInput), t0),
		entry("bob", "a plain message", t0.Add(time.Second)))
	if _, err := l.Answer(context.Background(), permID, "", Decision{Approve: true}); err != nil {
		t.Fatal(err)
	}
	unread, err := mailbox.New(l.Team.InboxPath(team.LeadName), lockfile.Options{}).Unread()
	if err != nil {
		t.Fatal(err)
	}
	if len(unread) != 1 || unread[0].Text != "a plain message" {
		t.Errorf("the lead's unread mail after the answer: %+v, want only bob's message", unread)
	}
	if got := waiting(t, l); len(got) != 0 {
		t.Errorf("still waiting: %s", ids(got))
	}
}

// TestATeammateCannotAnswer: a process inside a teammate may list
// requests but answer none, its own or another's.
func TestATeammateCannotAnswer(t *testing.T) {
	l := crew(t)
	writeInbox(t, l, entry("alice", permFrame(permID, "alice", "Bash", exampleInput), t0))
	l.Teammate = "bob"
	if _, err := l.Answer(context.Background(), permID, "", Decision{Approve: true}); !errors.Is(err, ErrNotLead) {
		t.Fatalf("answer from inside bob: %v, want ErrNotLead", err)
	}
	if len(inbox(t, l, "alice")) != 0 {
		t.Fatal("an answer was written from inside a teammate")
	}
}

// TestClaudesOwnTeammateIsRefused: a teammate Claude Code started holds
// its Claude lead's key, so paneteam does not answer it even when that
// lead is gone (an unsigned approval would count as a denial).
func TestClaudesOwnTeammateIsRefused(t *testing.T) {
	l := crew(t)
	if _, err := l.Team.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		a := c.Member("alice")
		a.TmuxPaneID, a.BackendType = "%7", team.BackendTmux // a Claude pane teammate: no paneteam record
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	writeInbox(t, l, entry("alice", permFrame(permID, "alice", "Bash", exampleInput), t0))
	if _, err := l.Answer(context.Background(), permID, "", Decision{Approve: true}); !errors.Is(err, ErrClaudeLeads) {
		t.Fatalf("Claude's own teammate: %v, want ErrClaudeLeads", err)
	}
}

// TestAlwaysTakesOnlyNarrowRules: --always adds only allow rules for the
// tool asked about, in local settings or the session; a teammate cannot
// slip in a rule for another tool, a replacement of the person's rules,
// or a rule for every project.
func TestAlwaysTakesOnlyNarrowRules(t *testing.T) {
	sugg := func(s ...string) Request {
		return Request{ID: permID, Kind: KindPermission, ToolName: "Bash", Suggestions: json.RawMessage("[" + strings.Join(s, ",") + "]")}
	}
	own := `{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"make test"}],"behavior":"allow","destination":"localSettings"}`
	for _, bad := range []string{
		`{"type":"addRules","rules":[{"toolName":"Write"}],"behavior":"allow","destination":"localSettings"}`,
		`{"type":"replaceRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"localSettings"}`,
		`{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"allow","destination":"userSettings"}`,
		`{"type":"addRules","rules":[{"toolName":"Bash"},{"toolName":"Edit"}],"behavior":"allow","destination":"session"}`,
	} {
		if got, err := AlwaysRules(sugg(bad)); err == nil {
			t.Errorf("AlwaysRules took %s", got)
		}
		got, err := AlwaysRules(sugg(bad, own))
		if err != nil || len(got) != 1 || string(got[0]) != own {
			t.Errorf("AlwaysRules(%s + own) = %s, %v; want only the Bash rule in local settings", bad, got, err)
		}
	}
}
