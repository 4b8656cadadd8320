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

	"golang.org/x/sys/unix"

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
// its tmux. Each round starts one lead of each, each in a private tmux
// server, and spawns their teammates in alternation (a b, then b a), so
// that what else loads the machine weighs on both alike. It logs p50,
// p95 and mean per mode and their ratios, and fails when paneteam's p50
// is over spawnTarget times tmux's. Timed, so run on demand
// (PANETEAM_BENCH=1; a few minutes) and recorded in bench/RESULTS.md.
// PANETEAM_SPAWNBENCH_ROUNDS and PANETEAM_SPAWNBENCH_TEAMMATES change the
// defaults (4 rounds of 5 teammates a lead).
func TestSpawnLatencyShimVsTmux(t *testing.T) {
	if os.Getenv("PANETEAM_BENCH") != "1" {
		t.Skip("SKIPPED: a timing run; set PANETEAM_BENCH=1 to run it")
	}
	rounds, per := envInt(t, "PANETEAM_SPAWNBENCH_ROUNDS", 4), envInt(t, "PANETEAM_SPAWNBENCH_TEAMMATES", 5)
	claudetest.Binary(t) // installed before the clock matters
	testutil.Binary(t)
	load := []string{loadAvg()}
	times := map[string][]spawnTime{}
	var pairs []float64 // paneteam / tmux, spawn by spawn
	for r := 1; r <= rounds; r++ {
		t.Run(fmt.Sprintf("round%d", r), func(t *testing.T) {
			leads := map[string]*spawnLead{"tmux": {shimLead: startTmuxLead(t)}, "paneteam": {shimLead: startBenchShimLead(t)}}
			for _, l := range leads {
				l.seen = map[string]bool{mustConfig(t, l.Session).LeadSessionID: true}
			}
			for i := 1; i <= per; i++ {
				order := []string{"tmux", "paneteam"}
				if (r+i)%2 == 1 {
					order = []string{"paneteam", "tmux"}
				}
				got := map[string]spawnTime{}
				for _, mode := range order {
					got[mode] = leads[mode].timeSpawn(t, fmt.Sprintf("mate%d", i))
					times[mode] = append(times[mode], got[mode])
				}
				pairs = append(pairs, float64(got["paneteam"].total)/float64(got["tmux"].total))
				ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
				t.Logf("mate%d (total = lead + teammate): tmux %s = %s + %s, paneteam %s = %s + %s", i,
					ms(got["tmux"].total), ms(got["tmux"].lead), ms(got["tmux"].mate),
					ms(got["paneteam"].total), ms(got["paneteam"].lead), ms(got["paneteam"].mate))
			}
			load = append(load, loadAvg())
			// Nothing of this round left to load the next one.
			for _, l := range leads {
				cfg := mustConfig(t, l.Session)
				var agents []string
				for i := 1; i <= per; i++ {
					agents = append(agents, fmt.Sprintf("mate%d@%s", i, cfg.Name))
				}
				l.exitLead(t, l.Tmux, true, agents...)
			}
		})
	}
	if t.Failed() {
		return
	}
	part := func(mode string, f func(spawnTime) time.Duration) spawnStat {
		var ds []time.Duration
		for _, st := range times[mode] {
			ds = append(ds, f(st))
		}
		return spawnStats(ds)
	}
	sort.Float64s(pairs)
	t.Logf("RESULT %d teammates per mode (%d rounds of %d), load average (1 5 15 min) at the start and after each round: %s",
		len(times["tmux"]), rounds, per, strings.Join(load, "; "))
	var ratio float64
	for _, p := range []struct {
		what string
		f    func(spawnTime) time.Duration
	}{
		{"Agent call to the teammate's first request", func(s spawnTime) time.Duration { return s.total }},
		{"  of which the lead's, to the teammate's process start", func(s spawnTime) time.Duration { return s.lead }},
		{"  of which the teammate's start-up", func(s spawnTime) time.Duration { return s.mate }},
	} {
		tm, pt := part("tmux", p.f), part("paneteam", p.f)
		t.Logf("RESULT %s: tmux p50 %s p95 %s mean %s; paneteam p50 %s p95 %s mean %s; ratio p50 %.3f mean %.3f",
			p.what, tm.p50, tm.p95, tm.mean, pt.p50, pt.p95, pt.mean,
			float64(pt.p50)/float64(tm.p50), float64(pt.mean)/float64(tm.mean))
		if ratio == 0 {
			ratio = float64(pt.p50) / float64(tm.p50)
		}
	}
	t.Logf("RESULT median of the paired spawns' ratios (total) %.3f; target %.1f", pairs[len(pairs)/2], spawnTarget)
	if ratio > spawnTarget {
		t.Errorf("a teammate spawned through paneteam took %.2fx the time of Claude Code's own spawn into tmux (p50), over the target %.1fx", ratio, spawnTarget)
	}
}

// spawnLead is a lead whose spawns are timed; seen holds the sessions
// (the lead's, its teammates') whose requests came already.
type spawnLead struct {
	*shimLead
	seen map[string]bool
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

// spawnTime is one teammate's spawn: from the moment the reply carrying
// the Agent call was sent to the lead, until the teammate's first request
// came (total), and how that splits at the start of the teammate's
// Claude process: the lead's part (its tmux calls, through paneteam or
// not) and the teammate's (Claude starting up, the same in both).
type spawnTime struct{ total, lead, mate time.Duration }

// timeSpawn has the lead's model call its Agent tool for a teammate
// named n and times it: to the arrival of the teammate's first request
// (the first from a session not seen before) at the fake model.
func (l *spawnLead) timeSpawn(t *testing.T, n string) spawnTime {
	t.Helper()
	prompt := "You are " + n + "; wait for work."
	l.api.On("start teammate "+n,
		claudetest.Calls(claudetest.Tool("Agent", map[string]any{"description": "helper " + n, "prompt": prompt, "name": n})),
		claudetest.Text("Started "+n+"."))
	call := l.Submit(t, wait, "start teammate "+n)
	if len(call.Reply.Blocks) != 1 || call.Reply.Blocks[0].Tool != "Agent" {
		t.Fatalf("the request carrying %q got %+v, not the Agent call", "start teammate "+n, call.Reply)
	}
	first := l.api.WaitRequest(t, wait, call.Seq, n+"'s first request", func(r *claudetest.Request) bool {
		return !l.seen[r.SessionID()]
	})
	l.seen[first.SessionID()] = true
	if !strings.Contains(first.MessagesText(), prompt) {
		t.Fatalf("the first request of a new session after %s's spawn is not %s's: %q", n, n, first.TailText())
	}
	sent := l.api.ReplySent(call)
	if sent.IsZero() {
		t.Fatalf("the reply carrying %s's Agent call has no time it was sent", n)
	}
	st := spawnTime{total: first.Time.Sub(sent)}
	started, ok := time.Time{}, false
	for _, pid := range agentProcs(n + "@" + mustConfig(t, l.Session).Name) {
		if at, found := procStarted(pid); found && (!ok || at.Before(started)) {
			started, ok = at, true
		}
	}
	if !ok {
		t.Fatalf("no Claude process of %s to time its start", n)
	}
	st.lead, st.mate = started.Sub(sent), first.Time.Sub(started)
	l.api.WaitMessages(t, wait, call.Seq, "Spawned successfully")
	// Let the teammate's first turn and the lead's end, so that one
	// spawn's start-up does not load the next one's.
	time.Sleep(2 * time.Second)
	return st
}

// procStarted is when pid started, on the wall clock, to the 10 ms of
// /proc/<pid>/stat's start time (clock ticks of the boot-time clock).
func procStarted(pid int) (time.Time, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return time.Time{}, false
	}
	now := time.Now()
	return now.Add(time.Duration(ticks)*10*time.Millisecond - time.Duration(ts.Nano())), true
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
