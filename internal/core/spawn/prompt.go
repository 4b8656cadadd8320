package spawn

import (
	"context"
	"fmt"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// deliverPrompt posts the member's prompt as its first inbox message, so
// it is waiting when the teammate first looks: from team-lead
// (docs/PROTOCOL.md §14) or, in a team a live
// Claude Code leads, from the spawner (post.Caller.LeadSender); signed by
// signer when the teammate holds a key (docs/PROTOCOL.md §14). It
// returns what takes the prompt back.
func deliverPrompt(ctx context.Context, t team.Team, lock lockfile.Options, m team.Member, from string, signer mailbox.Signer) (func(context.Context) error, error) {
	if m.Prompt == "" {
		return func(context.Context) error { return nil }, nil
	}
	if from == "" {
		from = team.LeadName
	}
	p := post.Post{Team: t, Lock: lock, From: from, Signer: signer}
	msg, err := p.Send(ctx, m.Name, mailbox.Message{Text: m.Prompt})
	if err != nil {
		return nil, fmt.Errorf("deliver the prompt to %s: %w", m.Name, err)
	}
	return func(ctx context.Context) error {
		takeBack(ctx, mailbox.New(t.InboxPath(m.Name), lock), msg)
		return nil
	}, nil
}

// takeBack removes msg from the inbox (best effort: the spawn failed
// already).
func takeBack(ctx context.Context, in *mailbox.Inbox, msg mailbox.Message) {
	in.Update(ctx, func(msgs []mailbox.Message) ([]mailbox.Message, error) { //nolint:errcheck
		out := msgs[:0]
		for _, x := range msgs {
			if !(x.From == msg.From && x.Text == msg.Text && x.Timestamp == msg.Timestamp) {
				out = append(out, x)
			}
		}
		return out, nil
	})
}
