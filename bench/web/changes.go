package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// latencies are the measured delays, in milliseconds, by kind.
type latencies struct {
	all  []float64
	kind []string
	skew float64 // the largest |page's stamp - Date.now()|, ms
}

func (l latencies) of(k string) []float64 {
	if k == "all" {
		return l.all
	}
	var out []float64
	for i, d := range l.all {
		if l.kind[i] == k {
			out = append(out, d)
		}
	}
	return out
}

func (b *bench) teamOf() (team.Team, error) {
	t, _, err := team.Open(b.root, "bench")
	return t, err
}

func (b *bench) leadInbox() string {
	t, err := b.teamOf()
	if err != nil {
		return ""
	}
	return t.InboxPath(team.LeadName)
}

func (b *bench) loadColors() error {
	_, cfg, err := team.Open(b.root, "bench")
	if err != nil {
		return err
	}
	for _, m := range cfg.Members {
		b.colors[m.Name] = m.Color
	}
	return nil
}

// changes times n changes: each teammate in turn goes idle (an
// idle_notification to the lead, as Claude Code's pane teammates send at
// every turn's end), and from the eleventh on a teammate already idle asks
// to run a Bash command (a permission_request to the lead), so that no
// request hides an idle (a teammate with a request waiting needs you).
// Each is written while the page waits for it, a quarter second or so
// after the page showed the previous one.
func (b *bench) changes(br *browser, n int) (latencies, error) {
	var l latencies
	t, err := b.teamOf()
	if err != nil {
		return l, err
	}
	lead := mailbox.New(t.InboxPath(team.LeadName), lockfile.Options{})
	type change struct {
		kind, sel string
		write     func(now time.Time) error
	}
	var plan []change
	for i := 0; len(plan) < n && i < 2*(*members); i++ {
		if i < *members {
			name := mate(i)
			plan = append(plan, change{"idle", `li[data-member="` + name + `"] .state-idle`, func(now time.Time) error {
				return b.idle(lead, name, now)
			}})
		}
		if j := i - 10; j >= 0 && j < *members && len(plan) < n {
			name := mate(j)
			id := mailbox.PermissionRequestID(time.Now()) // the page waits for this id
			plan = append(plan, change{"request", `li[data-request="` + id + `"]`, func(now time.Time) error {
				return b.request(lead, name, id, now)
			}})
		}
	}
	for _, c := range plan {
		time.Sleep(200*time.Millisecond + rand.N(150*time.Millisecond))
		if err := br.arm(c.sel); err != nil {
			return l, err
		}
		now := time.Now()
		start := float64(now.UnixNano()) / 1e6
		if err := c.write(now); err != nil {
			return l, err
		}
		seen, skew, err := br.seen()
		if err != nil {
			return l, fmt.Errorf("%s %s: %w", c.kind, c.sel, err)
		}
		l.skew = max(l.skew, math.Abs(skew))
		l.all = append(l.all, seen-start)
		l.kind = append(l.kind, c.kind)
	}
	return l, nil
}

// idle appends name's idle_notification to the lead's inbox, as a Claude
// Code teammate does at its turn's end (docs/PROTOCOL.md §8).
func (b *bench) idle(lead *mailbox.Inbox, name string, now time.Time) error {
	v := mailbox.IdleNotification{Type: mailbox.TypeIdle, From: name, Timestamp: mailbox.Timestamp(now), IdleReason: mailbox.IdleAvailable,
		Summary: "finished its task", Result: "Done: the tests pass."}
	text, err := mailbox.Text(v)
	if err != nil {
		return err
	}
	return lead.Append(context.Background(), mailbox.Message{From: name, Text: text, Timestamp: mailbox.Timestamp(now), Color: b.colors[name]})
}

// request appends name's permission_request for a Bash command to the
// lead's inbox (docs/PROTOCOL.md §8: agent_id is the entry's from).
func (b *bench) request(lead *mailbox.Inbox, name, id string, now time.Time) error {
	input, _ := json.Marshal(map[string]string{"command": "go test ./...", "description": "run the tests"})
	v := mailbox.PermissionRequest{Type: mailbox.TypePermissionRequest, RequestID: id, AgentID: name, ToolName: "Bash",
		ToolUseID: "toolu_01bench" + strconv.FormatInt(now.UnixNano(), 36), Description: "run the tests", Input: input,
		PermissionSuggestions: json.RawMessage(`[]`)}
	text, err := mailbox.Text(v)
	if err != nil {
		return err
	}
	return lead.Append(context.Background(), mailbox.Message{From: name, Text: text, Timestamp: mailbox.Timestamp(now), Color: b.colors[name]})
}
