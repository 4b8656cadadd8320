package post

import (
	"context"
	"fmt"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// The entry points of paneteam's other writers: a teammate's own post (a
// notice to its lead, a reply), a protocol frame (an idle notice, a
// shutdown request, an approval's answer), each written as Send writes,
// so idle notices are summarised and the lead's words signed wherever
// they come from.

// As is the post of member name of t, as a process running for it writes
// (its turn-end hook, its wrapper, its budget's guard): from name, in its
// team colour, never signed (a teammate's writes must never carry its
// lead's signature). cfg may be nil (the team could not be read): then
// nothing is summarised and the message wears no colour.
func As(t team.Team, cfg *team.Config, lock lockfile.Options, name string) *Post {
	color := ""
	if cfg != nil {
		if m := cfg.Member(name); m != nil {
			color = m.Color
		}
	}
	return &Post{Team: t, Lock: lock, From: name, Color: color, Config: cfg}
}

// Lead is the name of the inbox p's team's lead reads (leadAgentId's, or
// team-lead).
func (p *Post) Lead() string { return p.Config.LeadAgentName() }

// SendLead is Send to the lead's inbox.
func (p *Post) SendLead(ctx context.Context, m mailbox.Message) (mailbox.Message, error) {
	return p.Send(ctx, p.Lead(), m)
}

// Frame is the entry holding the protocol frame v (a mailbox frame value,
// mailbox.ShutdownRequest, mailbox.IdleNotification, ...), stamped at.
func Frame(v any, at time.Time) (mailbox.Message, error) {
	text, err := mailbox.Text(v)
	if err != nil {
		return mailbox.Message{}, err
	}
	return mailbox.Message{Text: text, Timestamp: mailbox.Timestamp(at)}, nil
}

// SendFrame writes the protocol frame v (Frame) to to's inbox, as Send
// writes, stamped at: an idle_notification to the lead is summarised as
// every idle notice there is (OpenInbox).
func (p *Post) SendFrame(ctx context.Context, to string, v any, at time.Time) (mailbox.Message, error) {
	m, err := Frame(v, at)
	if err != nil {
		return m, err
	}
	return p.Send(ctx, to, m)
}

// AskShutdown writes to a shutdown_request from p.From, as Claude Code's
// lead writes one (docs/PROTOCOL.md §10), with a new request id
// (mailbox.RequestID), which it returns for the answer to be matched to.
// From the lead to a keyed teammate it is signed by p.Signer.
func (p *Post) AskShutdown(ctx context.Context, to, reason string, at time.Time) (string, error) {
	id := mailbox.RequestID("shutdown", to, at)
	_, err := p.SendFrame(ctx, to, mailbox.ShutdownRequest{
		Type: mailbox.TypeShutdownRequest, RequestID: id, From: p.From,
		Reason: reason, Timestamp: mailbox.Timestamp(at),
	}, at)
	if err != nil {
		return id, fmt.Errorf("send %s a shutdown request: %w", to, err)
	}
	return id, nil
}
