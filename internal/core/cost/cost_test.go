package cost

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/core/usage"
	"github.com/paneteam/paneteam/team"
)

func spendOf(model string, t usage.Tokens) usage.Spend {
	return usage.Spend{Models: map[string]usage.Model{model: {Tokens: t, Replies: 1}}}
}

// Unknown stays unknown: a team's sum leaves out, and says so, a member
// whose tokens are unknown and one whose model has no price, and is
// never a zero for nothing known.
func TestTotalSaysWhatItLeavesOut(t *testing.T) {
	r := NewReader(t.TempDir(), "")
	priced := r.Priced(spendOf("claude-haiku-4-5", usage.Tokens{Input: 1e6}))
	unpriced := r.Priced(spendOf("fake-model", usage.Tokens{Input: 5}))
	if priced.CostUSD == nil || *priced.CostUSD != 1 {
		t.Fatalf("1M input tokens of claude-haiku-4-5: %v, want $1", priced.CostUSD)
	}
	if unpriced.CostUSD != nil || len(unpriced.Unpriced) != 1 || *unpriced.InputTokens != 5 {
		t.Fatalf("an unpriced model: %+v, want its tokens and no cost", unpriced)
	}
	total := r.Total(map[string]Cost{"a": priced, "b": unpriced, "c": {Unknown: "on another host"}})
	if total.CostUSD == nil || *total.CostUSD != 1 || !total.Partial || *total.InputTokens != 1e6+5 {
		t.Fatalf("total %+v: want $1 and the known tokens, partial", total)
	}
	none := r.Total(map[string]Cost{"c": {Unknown: "on another host"}})
	if none.CostUSD != nil || none.InputTokens != nil || !none.Partial {
		t.Fatalf("nothing known: %+v, want nulls", none)
	}
	if empty := r.Total(map[string]Cost{}); empty.CostUSD == nil || *empty.CostUSD != 0 {
		t.Fatalf("no member with a model: %+v, want a known $0", empty)
	}
}

// A team cleaned up twice (kept half the first time) keeps the members
// the first cleanup read.
func TestKeepAddsToWhatWasKept(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	tm, cfg, err := team.Create(root, "crew", team.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Members = append(cfg.Members, team.Member{Name: "alice"})
	r := NewReader(state, "")
	if err := r.Keep(state, tm, cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Members = cfg.Members[:1]
	cfg.Members = append(cfg.Members, team.Member{Name: "bob"})
	if err := r.Keep(state, tm, cfg); err != nil {
		t.Fatal(err)
	}
	ended, err := EndedTeams(state)
	if err != nil || len(ended) != 1 {
		t.Fatalf("ended teams %v %v, want crew once", ended, err)
	}
	if _, ok := ended[0].Members["alice"]; !ok {
		t.Errorf("alice's spending was lost by the second cleanup: %v", ended[0].Members)
	}
	if _, ok := ended[0].Members["bob"]; !ok {
		t.Errorf("bob's spending was not kept: %v", ended[0].Members)
	}
	os.WriteFile(filepath.Join(state, "usage", "ended", "junk.json"), []byte("{"), 0o600)
	if ended, _ := EndedTeams(state); len(ended) != 1 {
		t.Errorf("a kept file that does not read cost more than itself: %d teams", len(ended))
	}
}

// A budget watcher's way: the member's source from its launch record,
// followed by a tracker, priced.
func TestSourceOfFollowedByATracker(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	tm, _, err := team.Create(root, "crew", team.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfgDir := filepath.Join(root, "claude")
	launches.Open(state).Write(launches.Record{Root: root, Team: "crew", Agent: "alice", CLI: "claude", Via: launches.ViaSpawnPane,
		Cwd: "/w", SessionID: "s", ConfigDir: cfgDir})
	src, err := SourceOf(state, tm, nil, "alice")
	if err != nil || src.Unknown != "" {
		t.Fatalf("alice's source: %+v %v", src, err)
	}
	path := filepath.Join(cfgDir, "projects", "-w", "s.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(`{"type":"assistant","message":{"id":"m1","model":"claude-haiku-4-5","usage":{"input_tokens":0,"output_tokens":200000}}}`+"\n"), 0o600)
	tr := &usage.Tracker{Source: src}
	s, err := tr.Read()
	if err != nil {
		t.Fatal(err)
	}
	if c := NewReader(state, "").Priced(s); c.CostUSD == nil || *c.CostUSD != 1 {
		t.Fatalf("alice's cost %v, want $1 (200k output tokens at $5 per million)", c.CostUSD)
	}
	if src, _ := SourceOf(state, tm, nil, "bob"); src.Unknown == "" {
		t.Error("bob, without a launch record, has a source")
	}
}
