// Package teammate is the protocol loop that makes any program a teammate:
// it watches the teammate's inbox, hands each new message to an Agent (a
// program under a pseudo-terminal, or the reference teammate that answers
// by mail), tells the lead when the teammate goes idle, and answers
// shutdown requests.
package teammate

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Agent receives the teammate's messages.
type Agent interface {
	// Deliver hands over one message; text is what to present (a plain
	// message's text, or a task assignment written out).
	Deliver(ctx context.Context, m mailbox.Message, text string) error
	// LastActivity is when the agent last did something visible (output,
	// a reply); the teammate is idle once that is IdleAfter ago.
	LastActivity() time.Time
	// Done is closed when the agent ended by itself (the program exited);
	// nil if it never does.
	Done() <-chan struct{}
	// Stop ends the agent after an approved shutdown.
	Stop(ctx context.Context) error
	// Exit describes how the agent ended ("" while it runs) and the error
	// to return for it.
	Exit() (string, error)
}

// Config is one teammate's identity and timing.
type Config struct {
	Team team.Team
	Name string
	Lock lockfile.Options
	// Poll is how often the inbox is read (Claude Code polls every 1 s).
	Poll time.Duration
	// IdleAfter is how long the agent must be quiet after its last
	// message before the lead is told it is idle.
	IdleAfter time.Duration
	// Log receives one line per thing the loop does (for the pane).
	Log io.Writer
	Now func() time.Time
	// Turns, when set, follows the program's own turn-end hook instead of
	// its output (see Turns).
	Turns *Turns
	// LeadKey is the --lead-verify-key the teammate was started with (""
	// for none). With one, a shutdown request is obeyed only when the lead
	// signed it, as a keyed Claude Code teammate obeys one (docs/PROTOCOL.md
	// §10, §11): anyone who can write the team's folder can write
	// "team-lead" as the sender.
	LeadKey string
	// Halt, when set, ends the agent when a reason arrives on it (its
	// budget is spent): stopped as for an approved shutdown (an agent
	// CLI's own quit first), and the lead told it ended and why.
	Halt <-chan string
}

// Defaults for Config.
const (
	DefaultPoll      = 250 * time.Millisecond
	DefaultIdleAfter = 5 * time.Second
)

type loop struct {
	Config
	agent    Agent
	lead     string
	member   team.Member
	cfg      *team.Config // as loaded at start; nil if unreadable
	inbox    *mailbox.Inbox
	handled  map[string]bool
	idleSent bool
	inactive bool // isActive:false written to the config
	since    time.Time
	ignored  map[string]bool
	verifier *provenance.Verifier // nil: no LeadKey
}

// Run handles the inbox until a shutdown is approved (nil), the agent ends
// by itself (its exit error), or ctx is done.
func Run(ctx context.Context, c Config, a Agent) error {
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.IdleAfter <= 0 {
		c.IdleAfter = DefaultIdleAfter
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	v, err := provenance.NewVerifier(c.LeadKey)
	if err != nil {
		return fmt.Errorf("the lead's verify key: %w", err)
	}
	l := &loop{Config: c, agent: a, lead: team.LeadName, handled: map[string]bool{}, ignored: map[string]bool{}, verifier: v}
	l.inbox = mailbox.New(c.Team.InboxPath(c.Name), c.Lock)
	if cfg, err := team.Load(c.Team.ConfigPath()); err == nil {
		l.cfg = cfg
		l.lead = cfg.LeadAgentName()
		if m := cfg.Member(c.Name); m != nil {
			l.member = *m
		}
	}
	if l.member.Name == "" {
		l.logf("%s is not a member of team %s: messages are still handled, but the lead will not know this teammate", c.Name, c.Team.Name)
		l.member.Name = c.Name
	}
	l.since = c.Now()
	if c.Turns != nil {
		return l.runTurns(ctx)
	}
	return l.run(ctx)
}

func (l *loop) run(ctx context.Context) error {
	for {
		select {
		case <-l.agent.Done():
			return l.ended(ctx)
		default:
		}
		next, err := l.next()
		if err != nil {
			l.logf("reading the inbox: %v", err)
		}
		if next != nil {
			if stop, err := l.handle(ctx, *next); stop || ctx.Err() != nil {
				return err
			}
			continue // re-read: a shutdown that arrived meanwhile goes first
		}
		l.maybeIdle(ctx)
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

// next is the first unread message not handled yet, in Order.
func (l *loop) next() (*mailbox.Message, error) {
	unread, err := l.inbox.Unread()
	if err != nil {
		return nil, err
	}
	var todo []mailbox.Message
	for _, m := range unread {
		if !l.handled[key(m)] {
			todo = append(todo, m)
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	return &Order(todo, l.lead)[0], nil
}

func key(m mailbox.Message) string {
	return m.From + "\x00" + m.Timestamp + "\x00" + m.Summary + "\x00" + m.Text
}

// logf writes a line to the teammate's pane, which a person watches:
// the names and errors in it come from the team's folder, so the line is
// shown by the rule for someone else's text (visible.Block).
func (l *loop) logf(format string, args ...any) {
	fmt.Fprintf(l.Log, "[paneteam] %s\r\n", visible.Block(fmt.Sprintf(format, args...)))
}
