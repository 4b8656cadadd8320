package agentrun

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/paneteam/paneteam/internal/agents/turnend"
	"github.com/paneteam/paneteam/internal/core/teammate"
	"github.com/paneteam/paneteam/internal/sys/safefs"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Runtime is how paneteam runs an agent CLI as a teammate: the command
// line its profile builds, the variables it adds, how its turns are
// followed and how it is asked to end.
type Runtime struct {
	Argv []string
	// Env is added to the teammate's environment (KEY=VALUE).
	Env []string
	// Turns follows the CLI's turn-end hook; nil when the profile has none
	// and idle is guessed from quiet output.
	Turns *teammate.Turns
	// Wrap makes the running program the teammate loop's agent: it types
	// the CLI's own quit before any signal, and only a fixed notice of a
	// message, never its text.
	Wrap func(*teammate.Program) teammate.Agent
	// hungUp is set when a stop had to hang up on the wrapped CLI: its
	// own quit command had not ended it.
	hungUp *atomic.Bool
}

// HungUp reports whether stopping the CLI took a signal because its own
// quit command did not end it: a profile whose quit no longer works
// shows here, and the person is told so.
func (rt *Runtime) HungUp() bool { return rt.hungUp != nil && rt.hungUp.Load() }

// EnterDelay separates a notice from its Enter: agent CLIs take an Enter
// that arrives with a burst of keys as part of a paste.
const EnterDelay = 300 * time.Millisecond

// Settle is how long an agent CLI's screen must be quiet after a turn's
// end before a notice is typed.
const Settle = 500 * time.Millisecond

// QuitGrace is how long an agent CLI gets to end after its quit command
// before it is hung up on.
const QuitGrace = 5 * time.Second

// NewRuntime prepares r's run folder (Prepare) for the teammate tc, with
// prog as the CLI's program, and follows its turns through its hook when
// the profile has one. The member is then marked as one whose idle is
// known from that hook. The CLI's MCP server believes the key the loop
// believes (tc.LeadKey): r.LeadVerifyKey is that key or empty.
func NewRuntime(ctx context.Context, r Request, tc teammate.Config, prog string) (*Runtime, error) {
	if r.LeadVerifyKey != "" && r.LeadVerifyKey != tc.LeadKey {
		return nil, errors.New("the MCP server and the teammate loop were given different lead verify keys")
	}
	r.LeadVerifyKey = tc.LeadKey
	l, err := Prepare(r)
	if err != nil {
		return nil, err
	}
	l.Argv[0] = prog
	turns := TurnFile(tc.Team, tc.Name)
	rt := &Runtime{Argv: l.Argv, Env: append(l.Env, turnend.TurnFileVar+"="+turns)}
	if r.Profile.IdleHook {
		if err := markIdleByHook(ctx, tc); err != nil {
			return nil, err
		}
		marked := false
		rt.Turns = &teammate.Turns{Settle: Settle, Ended: func() int {
			b, _ := safefs.ReadFile(turns)
			n := bytes.Count(b, []byte("\n"))
			if n > 0 && !marked {
				// Again once the pane is recorded (spawn-pane writes the
				// member's paneteam fields after the pane starts).
				marked = markIdleByHook(ctx, tc) == nil
			}
			return n
		}}
	}
	quit, notice := r.Profile.Quit, rt.Turns == nil
	rt.hungUp = new(atomic.Bool)
	rt.Wrap = func(prog *teammate.Program) teammate.Agent {
		prog.EnterDelay = EnterDelay
		return quitFirst{Program: prog, quit: quit, notice: notice, hungUp: rt.hungUp}
	}
	return rt, nil
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

// quitFirst ends the program with its own quit command (typed as keys,
// then Enter) and only then, if it is still there, by hanging up.
type quitFirst struct {
	*teammate.Program
	quit string
	// notice makes Deliver type the fixed notice instead of the text.
	notice bool
	// hungUp is set when Stop had to go on to a signal.
	hungUp *atomic.Bool
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
			case <-time.After(QuitGrace):
			case <-ctx.Done():
			}
		}
	}
	select {
	case <-q.Done():
		return nil // it ended by itself meanwhile
	default:
	}
	q.hungUp.Store(true)
	return q.Program.Stop(ctx)
}
