package mailbox

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strings"
)

// Idle notices summarise instead of piling up. Every teammate writes an
// idle_notification to the lead at the end of each turn; a person leading
// from a shell reads none of them one by one, so in a team paneteam leads
// a teammate's newer idle notice stands for its older plain ones: those
// are marked read, and every locked write moves read messages to the
// archive (archive.go), where 'inbox --archived' still shows them. A
// notice that carries a completed task or a failure says something the
// newest one does not, and stays unread. Teams a live Claude Code process
// leads are left alone: Claude's lead reads its own inbox, and the caller
// (who knows who leads) never sets SummariseIdle there.

// StaleIdle returns the indexes, in order, of the unread plain idle
// notices in msgs that a later idle notice from the same sender
// supersedes. Plain: an idle_notification with no completed task and no
// failure (idleReason "failed" or a failureReason). msgs is not changed.
func StaleIdle(msgs []Message) []int {
	type idle struct {
		at    int
		plain bool
	}
	var seen []idle
	last := map[string]int{} // sender -> index of its last idle notice
	for i, m := range msgs {
		// A cheap look before the parse: most messages are not idle ones.
		if !strings.Contains(m.Text, TypeIdle) {
			continue
		}
		p, ok := Parse(m.Text)
		if !ok || p.Type != TypeIdle {
			continue
		}
		n, _ := p.Value.(*IdleNotification)
		seen = append(seen, idle{at: i, plain: !m.Read && plainIdle(n)})
		last[m.From] = i
	}
	var out []int
	for _, s := range seen {
		if s.plain && last[msgs[s.at].From] != s.at {
			out = append(out, s.at)
		}
	}
	return out
}

func plainIdle(n *IdleNotification) bool {
	if n == nil {
		return true
	}
	return n.CompletedTaskID == "" && n.CompletedStatus == "" && n.FailureReason == "" && n.IdleReason != IdleFailed
}

// summariseIdle marks the stale idle notices of msgs read (in place) and
// reports how many it marked.
func summariseIdle(msgs []Message) int {
	stale := StaleIdle(msgs)
	for _, i := range stale {
		msgs[i].Read = true
	}
	return len(stale)
}

// SummariseIdle archives the idle notices newer ones supersede (see
// StaleIdle), under the inbox's lock, for notices written by a program
// that does not do it itself (a Claude Code teammate). It takes the lock
// only when an unlocked read finds something to do, and returns how many
// notices it archived. A missing inbox archives nothing.
func (in *Inbox) SummariseIdle(ctx context.Context) (int, error) {
	msgs, err := in.readAll()
	if err != nil || len(StaleIdle(msgs)) == 0 {
		return 0, err
	}
	return in.summarise(ctx, false)
}

// summarise archives the stale idle notices under the lock; with try, only
// if the lock is free at once (a reader does not wait for a writer: the
// next read does it).
func (in *Inbox) summarise(ctx context.Context, try bool) (int, error) {
	n := 0
	_, err := in.write(ctx, func(cur []Message) ([]Message, error) {
		if n = summariseIdle(cur); n == 0 {
			return nil, nil
		}
		return cur, nil
	}, nil, try, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	return n, err
}

// noIdle reports whether an inbox holding old, with fresh appended, holds
// no idle notice, so that summarising them has nothing to do and a write
// may splice (splice.go) instead of decoding the inbox. Most messages to
// a lead are not idle notices: a teammate's report, a person's send. A
// text that is one holds TypeIdle in its bytes unless a writer escaped
// its letters (\u), which sends old to decoding too, as Brief does
// (markers).
func noIdle(old []byte, fresh []Message) bool {
	if bytes.Contains(old, []byte(TypeIdle)) || bytes.Contains(old, []byte(`\u`)) {
		return false
	}
	for _, m := range fresh {
		if strings.Contains(m.Text, TypeIdle) {
			return false
		}
	}
	return true
}
