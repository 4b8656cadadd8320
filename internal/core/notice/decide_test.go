package notice

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/team"
)

func member(name string, st teamwatch.State) teamwatch.Member {
	m := teamwatch.Member{Name: name, State: st, RunBy: team.RunByPaneteam, Backend: team.BackendTmux, PaneID: "%" + name, Pane: teamwatch.PaneAlive}
	if st == teamwatch.StateGone {
		m.Pane = teamwatch.PaneDead
	}
	if st == teamwatch.StateNeedsYou {
		m.Waiting = 1
	}
	return m
}

func snap(ms ...teamwatch.Member) *teamwatch.Snapshot {
	lead := teamwatch.Member{Name: team.LeadName, RunBy: team.RunByLead, State: teamwatch.StateActive}
	return &teamwatch.Snapshot{Team: "review", Taken: time.Now(), Members: append([]teamwatch.Member{lead}, ms...)}
}

func kinds(ns []Notice) string {
	var s []string
	for _, n := range ns {
		s = append(s, string(n.Kind)+":"+n.Who)
	}
	return strings.Join(s, " ")
}

// TestEachConditionOnce: a condition is told when it starts, not again
// on every refresh while it lasts, and again after it ended and came
// back; what was so when the watch started is not news.
func TestEachConditionOnce(t *testing.T) {
	var d Decider
	A, I, N, G := teamwatch.StateActive, teamwatch.StateIdle, teamwatch.StateNeedsYou, teamwatch.StateGone
	steps := []struct {
		s    *teamwatch.Snapshot
		ev   []teamwatch.Event
		want string
	}{
		{snap(member("alice", N), member("bob", A)), nil, ""}, // the start: not news
		{snap(member("alice", N), member("bob", A)), nil, ""},
		{snap(member("alice", A), member("bob", N)), nil, "needs-you:bob"},
		{snap(member("alice", A), member("bob", N)), nil, ""},
		{snap(member("alice", N), member("bob", N)), nil, "needs-you:alice"},
		{snap(member("alice", I), member("bob", G)), nil, "died:bob team-idle:"}, // every live teammate idle
		{snap(member("alice", I), member("bob", G)), nil, ""},
		{snap(member("alice", I), member("bob", I)), nil, ""},
		{snap(member("alice", I), member("bob", I)), []teamwatch.Event{
			{Kind: teamwatch.KindTaskCompleted, Who: "alice", Owner: "alice", Task: "3", Subject: "parser"},
			{Kind: teamwatch.KindTaskCompleted, Task: "4", Subject: "nobody's"},
			{Kind: teamwatch.KindIdle, Who: "alice"},
		}, "finished:alice"},
		{snap(member("alice", A), member("bob", I)), nil, ""},
		{snap(member("alice", I), member("bob", I)), nil, "team-idle:"},
		{snap(member("alice", I), member("bob", I)), []teamwatch.Event{{Kind: OverBudgetEvent, Who: "bob"}}, "over-budget:bob"},
	}
	for i, st := range steps {
		if got := kinds(d.Decide(st.s, st.ev)); got != st.want {
			t.Errorf("step %d: got %q, want %q", i, got, st.want)
		}
	}
}

func TestTextIsVisibleAndBellPaneIsTmuxOnly(t *testing.T) {
	var d Decider
	d.Decide(snap(), nil)
	evil := member("a\x1b]0;x\a", teamwatch.StateNeedsYou)
	other := member("iterm", teamwatch.StateNeedsYou)
	other.Backend = "iterm2"
	ns := d.Decide(snap(evil, other), nil)
	if len(ns) != 2 {
		t.Fatalf("got %v", ns)
	}
	if strings.ContainsAny(ns[0].Text, "\x1b\a") || ns[0].Who != evil.Name || ns[0].Pane != evil.PaneID {
		t.Errorf("notice %+v", ns[0])
	}
	if ns[1].Pane != "" {
		t.Errorf("a bell for a pane tmux does not hold: %+v", ns[1])
	}
}

type recorder struct {
	mu  sync.Mutex
	got []Notice
}

func (r *recorder) Send(_ context.Context, n Notice) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, n)
	return nil
}

func (r *recorder) sent() []Notice {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Notice(nil), r.got...)
}

// TestQuietPeriodHoldsThenSendsOne: after a notice, the next ones wait
// for the quiet period and then go as one.
func TestQuietPeriodHoldsThenSendsOne(t *testing.T) {
	rec := &recorder{}
	n := &Notifier{Senders: []Sender{rec}, Quiet: 300 * time.Millisecond}
	defer n.Close()
	ctx := context.Background()
	A, N := teamwatch.StateActive, teamwatch.StateNeedsYou
	n.Handle(ctx, snap(member("alice", A), member("bob", A), member("carol", A)), nil)
	n.Handle(ctx, snap(member("alice", N), member("bob", A), member("carol", A)), nil)
	n.Handle(ctx, snap(member("alice", N), member("bob", N), member("carol", A)), nil)
	n.Handle(ctx, snap(member("alice", N), member("bob", N), member("carol", N)), nil)
	if got := rec.sent(); len(got) != 1 || got[0].Who != "alice" {
		t.Fatalf("before the quiet period ended: %v", got)
	}
	time.Sleep(600 * time.Millisecond)
	got := rec.sent()
	if len(got) != 2 || kinds(got[1].All()) != "needs-you:bob needs-you:carol" {
		t.Fatalf("after it: %v", got)
	}
	if !strings.Contains(got[1].Text, "bob needs you") || !strings.Contains(got[1].Text, "carol needs you") {
		t.Errorf("merged text %q", got[1].Text)
	}
}
