package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/internal/tests/testutil/teamtest"
	"github.com/paneteam/paneteam/team"
)

// A team whose Claude teammate's transcript holds known replies, beside a
// teammate on another host: status says each one's tokens and cost, or
// why they are unknown; the tmux segment ends with the team's total;
// cleanup keeps the totals and status --ended shows them.
func TestStatusShowsWhatEachTeammateCost(t *testing.T) {
	root, vars := ptRootVars(t)
	state := filepath.Join(vars["HOME"], ".local", "state", "paneteam")
	tm := teamtest.OnRoot(t, root, "crew", team.CreateOptions{LeaderPID: os.Getpid()},
		team.Member{Name: "alice", Cwd: "/work/crew"}, team.Member{Name: "remy", Cwd: "/srv"})
	cfgDir := filepath.Join(vars["HOME"], "claude")
	store := launches.Open(state)
	if err := store.Write(launches.Record{Root: root, Team: tm.Name, Agent: "alice", CLI: "claude", Via: launches.ViaSpawnPane,
		Cwd: "/work/crew", SessionID: "s-1", ConfigDir: cfgDir}); err != nil {
		t.Fatal(err)
	}
	store.Write(launches.Record{Root: root, Team: tm.Name, Agent: "remy", CLI: "claude", Via: launches.ViaSpawnPane, Host: "buildbox", SessionID: "s-2"})
	transcript := filepath.Join(cfgDir, "projects", "-work-crew", "s-1.jsonl")
	os.MkdirAll(filepath.Dir(transcript), 0o700)
	// claude-haiku-4-5: $1 in, $5 out, $0.10 cache read, $1.25 cache write
	// per million tokens; one reply of two blocks, one of one.
	var lines strings.Builder
	for _, r := range []struct {
		id                    string
		blocks, in, out, r, w int
	}{{"m1", 2, 1200, 300, 40000, 1000}, {"m2", 1, 800, 200, 0, 0}} {
		for range r.blocks {
			fmt.Fprintf(&lines, `{"type":"assistant","message":{"id":%q,"model":"claude-haiku-4-5","usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":%d}}}`+"\n",
				r.id, r.in, r.out, r.r, r.w)
		}
	}
	os.WriteFile(transcript, []byte(lines.String()), 0o600)
	const usd = (2000*1 + 500*5 + 40000*0.1 + 1000*1.25) / 1e6 // $0.00975

	out, errOut, code := ptRun(t, vars, "", "status", "--team", "crew")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"TOKENS", "COST", "2.0k/500/40.0k/1.0k", "$0.01", "? remy: runs on buildbox", "spent: $0.01+"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = ptRun(t, vars, "", "status", "--team", "crew", "--json")
	var teams []struct {
		Members []struct {
			Name  string          `json:"name"`
			Usage json.RawMessage `json:"usage"`
		} `json:"members"`
		Usage struct {
			CostUSD *float64 `json:"costUSD"`
			Partial bool     `json:"partial"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(out), &teams); err != nil || len(teams) != 1 {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	for _, m := range teams[0].Members {
		var u map[string]any
		json.Unmarshal(m.Usage, &u)
		switch m.Name {
		case "alice":
			if u["inputTokens"] != 2000.0 || u["outputTokens"] != 500.0 || u["cacheReadTokens"] != 40000.0 || u["cacheWriteTokens"] != 1000.0 {
				t.Errorf("alice's usage %s", m.Usage)
			}
			if c, ok := u["costUSD"].(float64); !ok || c < usd-1e-12 || c > usd+1e-12 {
				t.Errorf("alice's cost %v, want %v", u["costUSD"], usd)
			}
		case "remy":
			if v, ok := u["inputTokens"]; !ok || v != nil || u["costUSD"] != nil || !strings.Contains(fmt.Sprint(u["unknown"]), "buildbox") {
				t.Errorf("remy's usage %s: want null counts and why", m.Usage)
			}
		}
	}
	if c := teams[0].Usage.CostUSD; c == nil || !teams[0].Usage.Partial {
		t.Errorf("the team's usage: cost %v partial %v, want alice's, partial", c, teams[0].Usage.Partial)
	}
	out, _, _ = ptRun(t, vars, "", "status", "--format", "tmux")
	if !strings.Contains(out, "$0.01+") {
		t.Errorf("tmux segment %q lacks the team's total", out)
	}

	if _, errOut, code := ptRun(t, vars, "", "cleanup", "--team", "crew", "--force"); code != 0 {
		t.Fatalf("cleanup: %s", errOut)
	}
	out, _, _ = ptRun(t, vars, "", "status", "--ended")
	if !strings.Contains(out, "crew (ended") || !strings.Contains(out, "2.0k/500/40.0k/1.0k") {
		t.Errorf("status --ended after cleanup:\n%s\nwant crew's spending kept", out)
	}
}

// A team of plain commands, whose spending paneteam can never see: status
// says nothing of spending (no TOKENS or COST column of "?", no "spent"
// line, no line of why per member), and --json still says why for each.
// A Claude Code teammate on another host alone gets one short line.
func TestStatusSaysNothingOfSpendingItCannotKnow(t *testing.T) {
	root, vars := ptRootVars(t)
	state := filepath.Join(vars["HOME"], ".local", "state", "paneteam")
	tm := teamtest.OnRoot(t, root, "plain", team.CreateOptions{LeaderPID: os.Getpid()},
		team.Member{Name: "alice", Cwd: "/work"}, team.Member{Name: "bob", Cwd: "/work"})
	store := launches.Open(state)
	for _, n := range []string{"alice", "bob"} {
		if err := store.Write(launches.Record{Root: root, Team: tm.Name, Agent: n, Via: launches.ViaSpawnPane, Program: "sleep", Args: []string{"600"}, Cwd: "/work"}); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := ptRun(t, vars, "", "status", "--team", "plain")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, not := range []string{"TOKENS", "COST", "spent", "?", "cannot see"} {
		if strings.Contains(out, not) {
			t.Errorf("status of a team of plain commands shows %q:\n%s", not, out)
		}
	}
	if !strings.Contains(out, "alice") || !strings.Contains(out, "UNREAD") {
		t.Errorf("status lost its table:\n%s", out)
	}
	out, _, _ = ptRun(t, vars, "", "status", "--team", "plain", "--json")
	var teams []struct {
		Members []struct {
			Name  string `json:"name"`
			Usage *struct {
				Unknown string `json:"unknown"`
			} `json:"usage"`
		} `json:"members"`
	}
	if err := json.Unmarshal([]byte(out), &teams); err != nil || len(teams) != 1 {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	for _, m := range teams[0].Members {
		if m.Name != team.LeadName && (m.Usage == nil || m.Usage.Unknown == "") {
			t.Errorf("--json lost why %s's spending is unknown: %s", m.Name, out)
		}
	}

	// A Claude Code teammate on another host, whose spending paneteam
	// would read if it could: one line, naming it.
	remote := teamtest.OnRoot(t, root, "far", team.CreateOptions{LeaderPID: os.Getpid()},
		team.Member{Name: "remy", Cwd: "/srv", Paneteam: &team.MemberMeta{CLI: "claude"}})
	store.Write(launches.Record{Root: root, Team: remote.Name, Agent: "remy", CLI: "claude", Via: launches.ViaSpawnPane, Host: "buildbox", SessionID: "s-2"})
	out, _, _ = ptRun(t, vars, "", "status", "--team", "far")
	if strings.Contains(out, "TOKENS") || strings.Count(out, "spent") != 1 || !strings.Contains(out, "spent: not known for remy") {
		t.Errorf("status of a team whose only spending is unknown, a Claude teammate's:\n%s\nwant no TOKENS column and one line naming remy", out)
	}
}
