// Package agentidle measures how long an agent CLI teammate's turn end
// takes to reach its lead: from the scripted model's final reply of a turn
// to the lead's inbox holding the idle_notification paneteam's hook wrote,
// for Codex, Gemini CLI and OpenCode, each the real pinned release started
// by 'paneteam spawn-pane --agent' in a private tmux server.
//
//	PANETEAM_BENCH=1 go test -count=1 -v -run TestAgentIdleDelay ./bench/agentidle/
//
// PANETEAM_BENCH_SAMPLES sets the turns per CLI (default 10). Each line
// RESULT gives p50 and p95, and splits the delay at the notice's own
// timestamp (the moment paneteam's hook took the report): before it is the
// CLI and its hook starting paneteam, after it paneteam's write.
package agentidle

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/agenttest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// target is the delay a lead should see at most, at p50.
const target = time.Second

func TestAgentIdleDelay(t *testing.T) {
	if os.Getenv("PANETEAM_BENCH") != "1" {
		t.Skip("SKIPPED: a timing run; set PANETEAM_BENCH=1 to run it")
	}
	n := 10
	if s := os.Getenv("PANETEAM_BENCH_SAMPLES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("PANETEAM_BENCH_SAMPLES=%q: want a positive number", s)
		}
	}
	for _, c := range []struct {
		cli  agenttest.CLI
		tool func(string) (string, string) // namespace and name of a team tool as the CLI lists it
	}{
		{agenttest.Codex, func(s string) (string, string) { return "mcp__team", s }},
		{agenttest.Gemini, func(s string) (string, string) { return "", "mcp_team_" + s }},
		{agenttest.OpenCode, func(s string) (string, string) { return "", "team_" + s }},
	} {
		t.Run(c.cli.Name, func(t *testing.T) {
			bin := agenttest.Install(t, c.cli)
			total, cliPart, ours := measure(t, c.cli, bin, n, c.tool)
			p50, p95 := pct(total)
			c50, c95 := pct(cliPart)
			o50, o95 := pct(ours)
			t.Logf("RESULT %s %s: turn end to the lead's inbox p50 %s p95 %s (n=%d); to the hook's report p50 %s p95 %s; report to inbox p50 %s p95 %s",
				c.cli.Name, c.cli.Version, ms(p50), ms(p95), len(total), ms(c50), ms(c95), ms(o50), ms(o95))
			if p50 > target {
				t.Errorf("p50 %s over the target %s", ms(p50), target)
			}
		})
	}
}

// measure runs one teammate of the CLI and times n turns: each starts with
// a message from the lead, which the teammate's model reads with read_inbox
// and answers in one reply, the turn's last.
func measure(t *testing.T, cli agenttest.CLI, cliBin string, n int, tool func(string) (string, string)) (total, cliPart, ours []time.Duration) {
	agent := cli.Name
	var mu sync.Mutex
	replied := map[int]time.Time{} // turn -> when the model's final reply went out
	turn := 0
	model := agenttest.NewModel(t, func(r *agenttest.Request) []agenttest.Output {
		if !r.OffersTool("read_inbox") {
			switch { // the CLIs' side requests; Gemini CLI's want JSON
			case r.Contains("complexity_score"):
				return agenttest.Text(`{"complexity_reasoning": "a routine step", "complexity_score": 10}`)
			case r.Contains("next_speaker"):
				return agenttest.Text(`{"reasoning": "the turn is done", "next_speaker": "user"}`)
			}
			return agenttest.Text("Teammate work")
		}
		last := r.Last()
		mu.Lock()
		defer mu.Unlock()
		if last.CallID != "" || last.ToolName != "" || strings.Contains(last.UserText, "You are coder") {
			reply := agenttest.Text(fmt.Sprintf("Done with turn %d.", turn))
			replied[turn] = time.Now()
			return reply
		}
		if strings.Contains(last.UserText, "new message") {
			ns, name := tool("read_inbox")
			out := agenttest.CallTool(ns, name, map[string]any{})
			out[0].Call.ID = fmt.Sprintf("call_read_%d", r.Seq)
			return out
		}
		return agenttest.Text("ok")
	})
	home, work := t.TempDir(), t.TempDir()
	pt, root := testutil.Binary(t), testutil.Root(t)
	testutil.MCPBinary(t)
	srv := testutil.TmuxServer(t)
	vars := append([]string{
		"PATH=" + cliBin + ":" + filepath.Dir(pt) + ":" + os.Getenv("PATH"),
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "TERM=xterm-256color", "COLORTERM=truecolor",
	}, model.ProxyEnv()...)
	vars = append(vars, agenttest.PersonConfig(t, cli, home, model)...)
	testutil.SetServerEnv(t, srv, vars...)
	env := testutil.Env(append(testutil.TmuxEnv(t, srv, testutil.FirstPane(t, srv)), "PANETEAM_ROOT="+root, vars[0])...)
	paneteam := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(pt, args...)
		cmd.Env, cmd.Dir = env, work
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("paneteam %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return string(out)
	}
	tm, _, err := team.Open(root, strings.TrimSpace(paneteam("team-create", "bench")))
	if err != nil {
		t.Fatal(err)
	}
	inbox := tm.InboxPath(team.LeadName)
	paneteam("spawn-pane", "--team", "bench", "--name", "coder", "--cwd", work,
		"--agent", agent, "--prompt", "You are coder. Wait for messages.")
	t.Cleanup(func() { paneteam("kill-pane", "--team", "bench", "--name", "coder") })

	// Turn 0 is the prompt (start-up, not measured); turns 1..n are timed.
	for k := 0; k <= n; k++ {
		if k > 0 {
			mu.Lock()
			turn = k
			mu.Unlock()
			paneteam("send", "--team", "bench", "--to", "coder", fmt.Sprintf("turn %d: say done", k))
		}
		want := fmt.Sprintf("Done with turn %d.", k)
		seen, stamp := waitIdle(t, inbox, want, 120*time.Second)
		mu.Lock()
		end, ok := replied[k]
		mu.Unlock()
		if !ok {
			t.Fatalf("turn %d: idle notice %q with no final reply recorded", k, want)
		}
		t.Logf("turn %d: turn end to inbox %s (to the report %s)", k, ms(seen.Sub(end)), ms(stamp.Sub(end)))
		if k == 0 {
			continue
		}
		total = append(total, seen.Sub(end))
		cliPart = append(cliPart, stamp.Sub(end))
		ours = append(ours, seen.Sub(stamp))
	}
	return total, cliPart, ours
}

// waitIdle polls the lead's inbox every 2 ms until it holds coder's
// idle_notification whose summary is want, and returns when it was seen
// and the notice's own timestamp.
func waitIdle(t *testing.T, inbox, want string, d time.Duration) (seen, stamp time.Time) {
	t.Helper()
	box := mailbox.New(inbox, lockfile.Options{})
	deadline := time.Now().Add(d)
	var lastMod time.Time
	var lastSize int64 = -1
	for time.Now().Before(deadline) {
		st, err := os.Stat(inbox)
		if err == nil && (st.ModTime() != lastMod || st.Size() != lastSize) {
			now := time.Now()
			lastMod, lastSize = st.ModTime(), st.Size()
			msgs, _ := box.ReadAll()
			for _, m := range msgs {
				p, ok := mailbox.Parse(m.Text)
				if !ok || p.Type != mailbox.TypeIdle || m.From != "coder" {
					continue
				}
				if n, ok := p.Value.(*mailbox.IdleNotification); ok && n.Summary == want {
					ts, err := time.Parse(time.RFC3339Nano, n.Timestamp)
					if err != nil {
						t.Fatalf("idle_notification timestamp %q: %v", n.Timestamp, err)
					}
					return now, ts
				}
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("no idle_notification %q in %s after %s", want, inbox, d)
	return
}

func pct(ds []time.Duration) (p50, p95 time.Duration) {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2], s[min(len(s)-1, (len(s)*95+99)/100-1)]
}

func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }
