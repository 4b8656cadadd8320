package notice

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/paneteam/paneteam/internal/core/teamwatch"
)

// DefaultQuiet is the quiet period: after a notice, what else the team
// has to tell waits this long and then comes as one notice.
const DefaultQuiet = 10 * time.Second

// Sender carries a notice to the person one way.
type Sender interface {
	Send(ctx context.Context, n Notice) error
}

// Notifier tells one team's notices through its senders, within the
// quiet period. Handle is called with each snapshot a teamwatch.Watcher
// returns; a notice held back by the quiet period goes out when the
// period ends, even if the team says nothing more.
type Notifier struct {
	Senders []Sender
	// Quiet is the quiet period (none when zero).
	Quiet time.Duration
	// OnError receives a sender's failure; the others still send.
	OnError func(error)

	mu     sync.Mutex
	ctx    context.Context
	d      Decider
	last   time.Time
	held   []Notice
	timer  *time.Timer
	closed bool
}

// Handle decides the notices of snapshot s and its events, and sends
// them now or when the quiet period ends.
func (n *Notifier) Handle(ctx context.Context, s *teamwatch.Snapshot, events []teamwatch.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ctx = ctx
	n.held = append(n.held, n.d.Decide(s, events)...)
	if len(n.held) == 0 || n.closed || n.timer != nil {
		return
	}
	if wait := time.Until(n.last.Add(n.Quiet)); wait > 0 {
		n.timer = time.AfterFunc(wait, n.flush)
		return
	}
	n.sendHeld()
}

// Close stops a pending quiet period; what it held is dropped.
func (n *Notifier) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	if n.timer != nil {
		n.timer.Stop()
	}
}

func (n *Notifier) flush() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.timer = nil
	if !n.closed {
		n.sendHeld()
	}
}

// sendHeld sends what is held as one notice (n.mu held): a person glances
// once, and the quiet period starts again.
func (n *Notifier) sendHeld() {
	if len(n.held) == 0 {
		return
	}
	one := Merge(n.held)
	n.held, n.last = nil, time.Now()
	for _, s := range n.Senders {
		if err := s.Send(n.ctx, one); err != nil && n.OnError != nil {
			n.OnError(fmt.Errorf("notice: %w", err))
		}
	}
}

// Merge makes one notice of several: the first, its text followed by the
// others', which it carries in More.
func Merge(ns []Notice) Notice {
	one := ns[0]
	if len(ns) == 1 {
		return one
	}
	texts := []string{one.Text}
	for _, o := range ns[1:] {
		texts = append(texts, o.Text)
	}
	one.More = append([]Notice(nil), ns[1:]...)
	one.Text = strings.Join(texts, "; ")
	return one
}

// All is the notice and those it carries, one by one.
func (n Notice) All() []Notice {
	all := []Notice{n}
	for _, m := range n.More {
		all = append(all, m.All()...)
	}
	all[0].More = nil
	return all
}
