package interop

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/tests/claudetest"
	"github.com/paneteam/paneteam/internal/tests/testutil"
)

// spawnTarget is the performance requirement: a teammate spawned through
// paneteam's tmux takes at most this many times the time of Claude Code's
// own spawn straight into tmux.
const spawnTarget = 1.1

// TestSpawnLatencyShimVsTmux times, for each teammate Claude Code's lead
// spawns with its Agent tool, the time from the moment the fake model's
// reply carrying the Agent call was sent to the lead to the arrival of
// that teammate's first request at the fake model: (a) the pinned Claude
// Code with --teammate-mode tmux straight into the real tmux, (b) the
// same Claude started through 'paneteam claude' inside tmux, paneteam as
// its tmux. Both run in a private tmux server, in alternating runs, the
// same number of teammates each; it logs p50, p95 and mean per mode and
// their ratios, and fails when paneteam's p50 is over spawnTarget times
// tmux's. Timed, so run on demand (PANETEAM_BENCH=1; a few minutes) and
// recorded in bench/RESULTS.md. PANETEAM_SPAWNBENCH_ROUNDS and
// PANETEAM_SPAWNBENCH_TEAMMATES change the defaults (3 rounds of 5).
func TestSpawnLatencyShimVsTmux(t *testing.T) {
	if os.Getenv("PANETEAM_BENCH") != "1" {
		t.Skip("SKIPPED: a timing run; set PANETEAM_BENCH=1 to run it")
	}
	rounds, per := envInt(t, "PANETEAM_SPAWNBENCH_ROUNDS", 3), envInt(t, "PANETEAM_SPAWNBENCH_TEAMMATES", 5)
	claudetest.Binary(t) // installed before the clock matters
	testutil.Binary(t)
	load := []string{loadAvg()}
	times := map[string][]time.Duration{}
	modes := []string{"tmux", "paneteam"}
	for r := 1; r <= rounds; r++ {
		order := modes
		if r%2 == 0 { // a b, b a, a b: neither always goes first
			order = []string{modes[1], modes[0]}
		}
		for _, mode := range order {
			t.Run(fmt.Sprintf("round%d/%s", r, mode), func(t *testing.T) {
				var l *shimLead
				if mode == "tmux" {
					l = startTmuxLead(t)
				} else {
					l = startBenchShimLead(t)
				}
				var names []string
				for i := 1; i <= per; i++ {
					names = append(names, fmt.Sprintf("mate%d", i))
				}
				ds := l.timeSpawns(t, names...)
				t.Logf("%s: %v", mode, ds)
				times[mode] = append(times[mode], ds...)
				cfg := mustConfig(t, l.Session)
				var agents []string
				for _, n := range names {
					agents = append(agents, n+"@"+cfg.Name)
				}
				// Nothing of this run left to load the next one.
				l.exitLead(t, l.Tmux, true, agents...)
			})
			load = append(load, loadAvg())
		}
	}
	if t.Failed() {
		return
	}
	tm, pt := spawnStats(times["tmux"]), spawnStats(times["paneteam"])
	t.Logf("RESULT %d teammates per mode (%d rounds of %d), load average (1 5 15 min) during the runs: %s", len(times["tmux"]), rounds, per, strings.Join(load, "; "))
	t.Logf("RESULT Claude Code straight into tmux: p50 %s, p95 %s, mean %s", tm.p50, tm.p95, tm.mean)
	t.Logf("RESULT through paneteam claude:        p50 %s, p95 %s, mean %s", pt.p50, pt.p95, pt.mean)
	ratio := float64(pt.p50) / float64(tm.p50)
	t.Logf("RESULT ratio paneteam/tmux: p50 %.3f, p95 %.3f, mean %.3f (target %.1f)", ratio,
		float64(pt.p95)/float64(tm.p95), float64(pt.mean)/float64(tm.mean), spawnTarget)
	if ratio > spawnTarget {
		t.Errorf("a teammate spawned through paneteam took %.2fx the time of Claude Code's own spawn into tmux (p50 %s against %s), over the target %.1fx",
			ratio, pt.p50, tm.p50, spawnTarget)
	}
}

// startTmuxLead starts the pinned Claude Code in a tmux pane with
// --teammate-mode tmux and the real tmux first on its PATH: Claude Code's
// own spawn, nothing of paneteam's in the way.
func startTmuxLead(t *testing.T) *shimLead {
	t.Helper()
	api := claudetest.NewAPI(t)
	s := claudetest.Start(t, claudetest.Options{
		API: api, Args: []string{"--dangerously-skip-permissions", "--teammate-mode", "tmux"},
	})
	s.WaitTeam(t, wait)
	return &shimLead{Session: s, api: api}
}

// startBenchShimLead is startShimLead inside tmux as a person runs it:
// without the shim's trace, which logs every call and so runs the real
// tmux as a child rather than becoming it.
func startBenchShimLead(t *testing.T) *shimLead {
	t.Helper()
	api := claudetest.NewAPI(t)
	bin := t.TempDir()
	if err := os.Symlink(claudetest.Binary(t), filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	l := &shimLead{api: api, tmpDir: testutil.ShortTempDir(t), state: t.TempDir()}
	l.Session = claudetest.Start(t, claudetest.Options{
		API: api, Bin: testutil.Binary(t), Args: []string{"claude", "--", "--dangerously-skip-permissions"},
		Env: []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "PANETEAM_STATE_DIR=" + l.state, "TMUX_TMPDIR=" + l.tmpDir},
	})
	l.WaitTeam(t, wait)
	return l
}

// timeSpawns has the lead's model call its Agent tool for each name, one
// after the other, and returns for each the time from the moment that
// reply was sent to the lead to the arrival of the teammate's first
// request (the first from a session not seen before) at the fake model.
func (l *shimLead) timeSpawns(t *testing.T, names ...string) []time.Duration {
	t.Helper()
	seen := map[string]bool{mustConfig(t, l.Session).LeadSessionID: true}
	var out []time.Duration
	for _, n := range names {
		prompt := "You are " + n + "; wait for work."
		l.api.On("start teammate "+n,
			claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "helper " + n, "prompt": prompt, "name": n})),
			claudetest.Text("Started "+n+"."))
		call := l.Submit(t, wait, "start teammate "+n)
		if len(call.Reply.Blocks) != 1 || call.Reply.Blocks[0].Tool != "Agent" {
			t.Fatalf("the request carrying %q got %+v, not the Agent call", "start teammate "+n, call.Reply)
		}
		first := l.api.WaitRequest(t, wait, call.Seq, n+"'s first request", func(r *claudetest.Request) bool {
			return !seen[r.SessionID()]
		})
		seen[first.SessionID()] = true
		if !strings.Contains(first.MessagesText(), prompt) {
			t.Fatalf("the first request of a new session after %s's spawn is not %s's: %q", n, n, first.TailText())
		}
		sent := l.api.ReplySent(call)
		if sent.IsZero() {
			t.Fatalf("the reply carrying %s's Agent call has no time it was sent", n)
		}
		out = append(out, first.Time.Sub(sent))
		l.api.WaitMessages(t, wait, call.Seq, "Spawned successfully")
		// Let the teammate's first turn and the lead's end, so that one
		// spawn's start-up does not load the next one's.
		time.Sleep(2 * time.Second)
	}
	return out
}

type spawnStat struct{ p50, p95, mean time.Duration }

func spawnStats(ds []time.Duration) spawnStat {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return spawnStat{p50: r(s[len(s)/2]), p95: r(s[(len(s)*95-1)/100]), mean: r(sum / time.Duration(len(s)))}
}

// loadAvg is the machine's load average (1, 5, 15 minutes), for reading a
// timing beside what else ran.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a whole number of at least 1", name, v)
	}
	return n
}
