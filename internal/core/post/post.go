package post

import (
	"context"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Post is messages from one sender into a team's inboxes: every message
// sent through it is from From, wears Color and is signed by Signer (when
// it speaks as the lead to a keyed teammate).
type Post struct {
	Team  team.Team
	Lock  lockfile.Options
	From  string
	Color string
	// Signer signs what goes out as the lead; nil signs nothing.
	Signer mailbox.Signer
	// Config is the team as read when the post was opened: it decides
	// which inbox summarises idle notices (OpenInbox). nil: none does.
	Config *team.Config
}

// Open readies the caller's post from `from` to the inboxes named by to,
// before anything is written: its colour (Color), the check that each
// keyed recipient will believe it (CheckSignable) and the caller's signer.
func (c Caller) Open(t team.Team, cfg *team.Config, lock lockfile.Options, from string, to []string, color string) (*Post, error) {
	color, err := Color(cfg, from, color)
	if err != nil {
		return nil, err
	}
	if err := c.CheckSignable(t, cfg, to, from); err != nil {
		return nil, err
	}
	return &Post{Team: t, Lock: lock, From: from, Color: color, Signer: c.Signer(), Config: cfg}, nil
}

// Message is m as p sends it: from p.From, in p.Color, stamped now when
// it has no timestamp yet.
func (p *Post) Message(m mailbox.Message) mailbox.Message {
	m.From, m.Color = p.From, p.Color
	if m.Timestamp == "" {
		m.Timestamp = mailbox.Timestamp(time.Now())
	}
	return m
}

// Inbox is the recipient's inbox (OpenInbox), signing as p does.
func (p *Post) Inbox(to string) *mailbox.Inbox {
	return OpenInbox(p.Team, p.Config, to, p.Lock).SignedBy(p.Signer)
}

// Send validates m (Message fills its sender, colour and time) and writes
// it to to's inbox under Claude Code's lock, returning once it is on disk,
// with the message as written.
func (p *Post) Send(ctx context.Context, to string, m mailbox.Message) (mailbox.Message, error) {
	m = p.Message(m)
	if err := m.Validate(); err != nil {
		return m, err
	}
	return m, p.Inbox(to).Send(ctx, m)
}
