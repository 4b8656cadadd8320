package launch

import (
	"bytes"
	"context"
	"os"
	"time"

	"github.com/paneteam/paneteam/internal/core/teammate"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// How an agent CLI is driven once it runs ('paneteam teammate --agent'):
// when its turns end, how a notice is typed into it, and how it is ended.

// EnterDelay separates a notice from its Enter: agent CLIs take an
// Enter that arrives with a burst of keys as part of a paste.
const EnterDelay = 300 * time.Millisecond

// settle is how long an agent CLI's screen must be quiet after a turn's
// end before a notice is typed.
const settle = 500 * time.Millisecond

// quitGrace is how long an agent CLI gets to end after its quit command
// before it is hung up on.
const quitGrace = 5 * time.Second

// HookTurns marks the member as one whose idle its CLI's hook reports
// (status shows it) and follows the turn ends the hook writes to turns,
// one line each.
func HookTurns(ctx context.Context, tc teammate.Config, turns string) (*teammate.Turns, error) {
	if err := markIdleByHook(ctx, tc); err != nil {
		return nil, err
	}
	marked := false
	return &teammate.Turns{Settle: settle, Ended: func() int {
		b, _ := os.ReadFile(turns)
		n := bytes.Count(b, []byte("\n"))
		if n > 0 && !marked {
			// Again once the pane is recorded (spawn-pane writes the
			// member's paneteam fields after the pane starts).
			marked = markIdleByHook(ctx, tc) == nil
		}
		return n
	}}, nil
}

// markIdleByHook records in the member's paneteam fields that its idle is
// known from its CLI's hook (status shows it).
func markIdleByHook(ctx context.Context, tc teammate.Config) error {
	_, err := tc.Team.Update(ctx, tc.Lock, func(cfg *team.Config) error {
		m := cfg.Member(tc.Name)
		if m == nil || m.Paneteam != nil && m.Paneteam.IdleBy == team.IdleByHook {
			return team.ErrNoChange
		}
		if m.Paneteam == nil {
			m.Paneteam = &team.MemberMeta{}
		}
		m.Paneteam.IdleBy = team.IdleByHook
		return nil
	})
	return err
}

// Agent is the teammate loop's view of a running agent CLI: it is ended
// with quit, its own quit command, before any hang-up; with notice, a
// message is announced by the fixed notice, never typed.
func Agent(prog *teammate.Program, quit string, notice bool) teammate.Agent {
	return quitFirst{Program: prog, quit: quit, notice: notice}
}

// quitFirst ends the program with its own quit command (typed as keys,
// then Enter) and only then, if it is still there, by hanging up.
type quitFirst struct {
	*teammate.Program
	quit string
	// notice makes Deliver type the fixed notice instead of the text.
	notice bool
}

// Deliver types the fixed notice, never the message: an agent CLI reads
// its messages with its team tools. (With a hook the loop types notices
// itself; this covers profiles whose idle is guessed from quiet output.)
func (q quitFirst) Deliver(ctx context.Context, m mailbox.Message, text string) error {
	if q.notice {
		text = teammate.Notice([]string{m.From})
	}
	return q.Program.Deliver(ctx, m, text)
}

func (q quitFirst) Stop(ctx context.Context) error {
	if q.quit != "" {
		if q.Input([]byte(q.quit)) == nil {
			time.Sleep(EnterDelay)
			q.Input([]byte("\r"))
			select {
			case <-q.Done():
				return nil
			case <-time.After(quitGrace):
			case <-ctx.Done():
			}
		}
	}
	return q.Program.Stop(ctx)
}
