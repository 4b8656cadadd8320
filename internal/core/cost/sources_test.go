package cost

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/team"
)

// The status line keeps a team's sources between refreshes; a teammate
// whose launch record is written after a refresh (a spawn, a resume) is
// read at the next one, and one whose record is forgotten is unknown
// again.
func TestKeptSourcesFollowTheLaunchRecords(t *testing.T) {
	state, root, cfgDir := t.TempDir(), t.TempDir(), t.TempDir()
	tm, cfg, err := team.Create(root, "crew", team.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Members = append(cfg.Members, team.Member{Name: "alice", Cwd: root})
	teamCost := func() Cost {
		r := NewReader(state, "")
		members, _ := r.Team(tm, cfg)
		return members["alice"]
	}
	if c := teamCost(); c.Known() {
		t.Fatalf("alice with no launch record: %+v, want unknown", c)
	}
	// One refresh later, with nothing changed, it is still unknown.
	if c := teamCost(); c.Known() {
		t.Fatalf("alice, again: %+v, want unknown", c)
	}
	sid := "11111111-2222-4333-8444-555555555555"
	path := filepath.Join(cfgDir, "projects", projectOf(root), sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"assistant","message":{"id":"msg_1","model":"claude-haiku-4-5","role":"assistant","content":[{"type":"text"}],"usage":{"input_tokens":1000000,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	store := launches.Open(state)
	rec := launches.Record{Root: root, Team: tm.Name, Agent: "alice", CLI: "claude", Via: "spawn-pane", Program: "claude",
		Cwd: root, SessionID: sid, ConfigDir: cfgDir, Started: time.Now().UTC().Format(time.RFC3339)}
	if err := store.Write(rec); err != nil {
		t.Fatal(err)
	}
	if c := teamCost(); !c.Known() || c.CostUSD == nil || *c.CostUSD != 1 {
		t.Fatalf("alice once her launch record is written: %+v, want her $1", fmtCost(c))
	}
	if err := store.Forget(root, tm.Name, "alice"); err != nil {
		t.Fatal(err)
	}
	if c := teamCost(); c.Known() {
		t.Fatalf("alice once her launch record is forgotten: %+v, want unknown", fmtCost(c))
	}
}

func projectOf(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

func fmtCost(c Cost) string {
	if c.CostUSD == nil {
		return fmt.Sprintf("unknown (%s)", c.Unknown)
	}
	return fmt.Sprintf("$%v", *c.CostUSD)
}
