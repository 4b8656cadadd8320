package team

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestRunByReadsTheConfigOnce: a decoded config answers LeadProcess (and
// so every member's RunBy) from what it decoded, without scanning the
// file's keys again, so a snapshot of a large team costs one scan, not
// one per member; SetExtra of leadProcess is seen at once.
func TestRunByReadsTheConfigOnce(t *testing.T) {
	var rows []string
	for i := 0; i < 30; i++ {
		rows = append(rows, fmt.Sprintf(`{"agentId":"mate%02d@s","name":"mate%02d","joinedAt":1,"tmuxPaneId":"%%%d","cwd":"/w","backendType":"tmux","subscriptions":[]}`, i, i, i+1))
	}
	cfg, err := parseConfig("", []byte(`{"name":"s","createdAt":1,"leadAgentId":"team-lead@s",`+
		`"leadProcess":{"pid":42,"pidSpace":"h","claimedAt":1767225600000},"members":[`+strings.Join(rows, ",")+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := &cfg.Members[29]
	if got := cfg.RunBy(m); got != RunByClaudePane {
		t.Fatalf("RunBy = %q, want %q", got, RunByClaudePane)
	}
	if n := testing.AllocsPerRun(20, func() { cfg.RunBy(m) }); n != 0 {
		t.Errorf("RunBy of a decoded config allocates %.0f times: it scans config.json again", n)
	}
	cfg.SetExtra(leadProcessKey, json.RawMessage(`{"pid":"not a number"}`))
	if _, ok := cfg.LeadProcess(); ok {
		t.Error("after SetExtra, LeadProcess still answers the leadProcess decoded before")
	}
}
