package teammate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/term/shorten"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Turns makes the loop follow a program whose own turn-end hook reports
// the end of each turn (an agent CLI started by 'spawn-pane --agent'),
// instead of guessing idle from quiet output:
//
//   - the program is busy from its start (it runs its first prompt) until
//     the hook reports a turn's end, and again from each notice typed;
//   - new messages are never typed in: between turns, and only then, a
//     fixed notice is (Notice), and the program reads them through its
//     team tools (which mark them read);
//   - the lead's idle_notification is the hook's to send, with the turn's
//     last reply; the loop only records isActive.
//
// Shutdown requests are answered at once, busy or not.
type Turns struct {
	// Ended returns how many turn ends the hook has reported so far.
	Ended func() int
	// Settle is how long the program's output must have been quiet after
	// a turn's end before a notice is typed: a hook can run before the
	// CLI's screen is back at its prompt, where Enter would be lost.
	Settle time.Duration
}

// Notice is what is typed into an agent CLI for new messages: never the
// messages themselves, which could start with the CLI's own command
// characters ('!' runs a shell command in Codex, '/' a slash command),
// but a fixed sentence naming the senders, each reduced to [A-Za-z0-9_-]
// (a sender's name is whatever its entry says: a newline in it would be
// an Enter, and a line of its own could start with '!').
func Notice(from []string) string {
	from = append([]string(nil), from...)
	for i, f := range from {
		from[i] = team.SanitizePath(shorten.Runes(f, 64, ""))
	}
	if len(from) == 1 {
		return fmt.Sprintf("new message from %s: read it with read_inbox", from[0])
	}
	return fmt.Sprintf("new messages from %s: read them with read_inbox", strings.Join(from, ", "))
}

func (l *loop) runTurns(ctx context.Context) error {
	busy, ended := true, 0
	for {
		select {
		case <-l.agent.Done():
			return l.ended(ctx)
		default:
		}
		if n := l.Turns.Ended(); n > ended {
			ended = n
			if busy {
				busy = false
				l.setActive(ctx, false)
			}
		}
		unread, err := l.inbox.Unread()
		if err != nil {
			l.logf("reading the inbox: %v", err)
		}
		var todo []mailbox.Message
		for _, m := range unread {
			if !l.handled[key(m)] {
				todo = append(todo, m)
			}
		}
		var notify []mailbox.Message
		for _, m := range Order(todo, l.lead) {
			if l.own(m) {
				l.handled[key(m)] = true
				continue
			}
			p, isProtocol := mailbox.Parse(m.Text)
			if isProtocol && p.Type != mailbox.TypeTaskAssignment {
				// A shutdown request, or a message only Claude Code acts on.
				if stop, err := l.handle(ctx, m); stop || ctx.Err() != nil {
					return err
				}
				continue
			}
			notify = append(notify, m)
		}
		if len(notify) > 0 && !busy && l.Now().Sub(l.agent.LastActivity()) >= l.Turns.Settle {
			var from []string
			for _, m := range notify {
				if !containsFold(from, m.From) {
					from = append(from, m.From)
				}
			}
			if err := l.agent.Deliver(ctx, notify[0], Notice(from)); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				l.logf("could not type the notice of new messages: %v (will retry)", err)
			} else {
				for _, m := range notify {
					l.handled[key(m)] = true
				}
				busy = true
				l.setActive(ctx, true)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.agent.Done():
			return l.ended(ctx)
		case why := <-l.Halt:
			return l.halt(ctx, why)
		case <-time.After(l.Poll):
		}
	}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
