package teammate

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/term/shorten"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// replyPrefix starts every reference reply. The reference teammate does
// not answer messages that start with it, so two reference teammates
// writing to each other exchange one message each, not an endless echo.
const replyPrefix = "Got your message. You wrote:"

// Reference is the teammate paneteam runs when no command is given: it
// answers each plain message to its sender with a reply quoting the text.
// It shows the protocol working end to end and is what the demo spawns.
type Reference struct {
	Team  team.Team
	Name  string
	Color string
	Lock  lockfile.Options
	Out   io.Writer // one line per message, for the pane
	Now   func() time.Time

	last atomic.Int64
}

// Reply is the reference teammate's answer to text.
func Reply(text string) string {
	return replyPrefix + "\n> " + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n> ")
}

func (r *Reference) Deliver(ctx context.Context, m mailbox.Message, text string) error {
	// The pane shows what others wrote: never sent to its terminal raw.
	fmt.Fprintf(r.Out, "%s <- %s: %s\r\n", visible.Line(r.Name), visible.Line(m.From), visible.Line(oneLine(text)))
	r.last.Store(r.now().UnixNano())
	if strings.HasPrefix(m.Text, replyPrefix) {
		return nil
	}
	// Through post, as every writer: a reply to the lead of a team
	// paneteam leads lands in an inbox that summarises idle notices.
	cfg, _ := team.Load(r.Team.ConfigPath()) // nil: an inbox opened plain
	p := &post.Post{Team: r.Team, Lock: r.Lock, From: r.Name, Color: r.Color, Config: cfg}
	reply := mailbox.Message{Text: Reply(text), Summary: "reply to " + m.From, Timestamp: mailbox.Timestamp(r.now())}
	if _, err := p.Send(ctx, m.From, reply); err != nil {
		return fmt.Errorf("reply to %s: %w", m.From, err)
	}
	fmt.Fprintf(r.Out, "%s -> %s: replied\r\n", visible.Line(r.Name), visible.Line(m.From))
	return nil
}

func (r *Reference) LastActivity() time.Time {
	if n := r.last.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

func (r *Reference) Done() <-chan struct{} { return nil }

func (r *Reference) Stop(context.Context) error {
	fmt.Fprintf(r.Out, "%s: shutting down\r\n", r.Name)
	return nil
}

func (r *Reference) Exit() (string, error) { return "", nil }

func (r *Reference) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func oneLine(s string) string {
	return shorten.Runes(strings.ReplaceAll(s, "\n", " / "), 200, "...")
}
