package budget_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/budget"
	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// world is a team with one Claude teammate whose transcript the test
// writes, at $1 per million input tokens and $10 per million output
// tokens (the person's prices.json).
type world struct {
	state, config, transcript string
	t                         team.Team
}

func newWorld(t *testing.T) *world {
	dir := t.TempDir()
	w := &world{state: filepath.Join(dir, "state"), config: filepath.Join(dir, "config")}
	root := filepath.Join(dir, "root")
	tm, _, err := team.Create(root, "crew", team.CreateOptions{LeaderPID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Update(context.Background(), lockfile.Options{}, func(cfg *team.Config) error {
		cfg.Members = append(cfg.Members, team.Member{Name: "bob", Cwd: "/work"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	w.t = tm
	claudeDir := filepath.Join(dir, "claude")
	if err := launches.Open(w.state).Write(launches.Record{Root: root, Team: tm.Name, Agent: "bob", CLI: "claude",
		Via: launches.ViaSpawnPane, Cwd: "/work", SessionID: "s-1", ConfigDir: claudeDir}); err != nil {
		t.Fatal(err)
	}
	w.transcript = filepath.Join(claudeDir, "projects", "-work", "s-1.jsonl")
	os.MkdirAll(filepath.Dir(w.transcript), 0o700)
	os.MkdirAll(w.config, 0o700)
	os.WriteFile(filepath.Join(w.config, "prices.json"), []byte(`{"models": {"fake-model": {"input_mtok": 1, "output_mtok": 10}}}`), 0o600)
	return w
}

// reply appends one reply of in input and out output tokens.
func (w *world) reply(t *testing.T, id string, in, out int) {
	f, err := os.OpenFile(w.transcript, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, `{"type":"assistant","message":{"id":%q,"model":"fake-model","usage":{"input_tokens":%d,"output_tokens":%d}}}`+"\n", id, in, out)
}

// A teammate with a $0.10 budget: a reply to $0.05 says nothing, the one
// to $0.085 warns once, the one past $0.10 stops it, and the kept status
// says so, why, and how.
func TestWatchWarnsThenStops(t *testing.T) {
	w := newWorld(t)
	var mu sync.Mutex
	var warned, stopped []budget.Status
	watch := &budget.Watch{State: w.state, Team: w.t, Name: "bob", USD: 0.10, Prices: w.config, Poll: 20 * time.Millisecond, Log: t.Logf,
		Warn: func(_ context.Context, s budget.Status) { mu.Lock(); warned = append(warned, s); mu.Unlock() },
		Stop: func(_ context.Context, s budget.Status) string {
			mu.Lock()
			stopped = append(stopped, s)
			mu.Unlock()
			return "ended"
		}}
	done := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { done <- watch.Run(ctx) }()
	calls := func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return len(warned), len(stopped)
	}
	// settle waits until the kept status shows usd spent.
	settle := func(usd float64) *budget.Status {
		t.Helper()
		for range 500 {
			if s := budget.Load(w.state, w.t, "bob"); s != nil && s.SpentUSD != nil && math.Abs(*s.SpentUSD-usd) < 1e-9 {
				return s
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("the kept status never showed $%v spent: %+v", usd, budget.Load(w.state, w.t, "bob"))
		return nil
	}

	w.reply(t, "m1", 40000, 1000) // $0.04 + $0.01
	if s := settle(0.05); s.State != budget.OK {
		t.Fatalf("after $0.05 of $0.10: %+v, want ok", s)
	}
	if a, b := calls(); a+b != 0 {
		t.Fatalf("after $0.05 of $0.10: %d warnings, %d stops", a, b)
	}
	w.reply(t, "m2", 35000, 0) // $0.085
	settle(0.085)
	w.reply(t, "m3", 1000, 0) // $0.086: still warned, not again
	settle(0.086)
	if a, b := calls(); a != 1 || b != 0 {
		t.Fatalf("at $0.086 of $0.10: %d warnings, %d stops; want one warning", a, b)
	}
	if s := budget.Load(w.state, w.t, "bob"); s == nil || s.State != budget.Warned {
		t.Fatalf("at $0.086 of $0.10: %+v, want warned", s)
	}
	w.reply(t, "m4", 0, 2000) // $0.106
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the watch did not stop bob past his budget")
	}
	if a, b := calls(); a != 1 || b != 1 {
		t.Fatalf("past $0.10: %d warnings, %d stops; want one of each", a, b)
	}
	s := budget.Load(w.state, w.t, "bob")
	if s == nil || s.State != budget.Stopped || s.Why != "over its budget of $0.10 ($0.11 spent); ended" {
		t.Fatalf("kept status %+v, want stopped, why and how", s)
	}
}

// The team's budget holds a teammate with none of its own.
func TestWatchHoldsTheTeamsBudget(t *testing.T) {
	w := newWorld(t)
	if err := budget.SetTeam(w.state, w.t, 0.02); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan budget.Status, 1)
	watch := &budget.Watch{State: w.state, Team: w.t, Name: "bob", Prices: w.config, Poll: 20 * time.Millisecond, Log: t.Logf,
		Stop: func(_ context.Context, s budget.Status) string { stopped <- s; return "ended" }}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go watch.Run(ctx)
	w.reply(t, "m1", 25000, 0)
	select {
	case s := <-stopped:
		if !s.Team || s.USD != 0.02 {
			t.Fatalf("stopped with %+v, want the team's $0.02", s)
		}
	case <-ctx.Done():
		t.Fatal("the team's budget did not stop bob")
	}
}
