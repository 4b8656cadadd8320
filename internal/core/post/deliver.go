package post

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/mailbox"
)

// Delivery is one message written to one inbox.
type Delivery struct {
	To string
	// RequestID is the id a protocol request carries (a shutdown_request
	// gets a new one per recipient), for the answer to be matched to.
	RequestID string
	Message   mailbox.Message
}

// Draft is the message for one recipient, and the request id it
// carries, if any; now is the same for every recipient of one post.
type Draft func(to string, now time.Time) (mailbox.Message, string, error)

// Plain drafts a plain text message (no protocol frame).
func Plain(text, summary string) Draft {
	return func(_ string, now time.Time) (mailbox.Message, string, error) {
		return mailbox.Message{Text: text, Summary: summary, Timestamp: mailbox.Timestamp(now)}, "", nil
	}
}

// SendEach writes draft's message (as Post.Send does) to each of to, in
// order, each on disk before the next. A draft that fails, or drafts a
// message that is not valid, stops it at once. A write that fails
// for the only recipient is that failure; for one of several the others
// are still written, and the error is an *Undelivered naming who missed
// it. The deliveries made are returned either way.
func (p *Post) SendEach(ctx context.Context, to []string, draft Draft) ([]Delivery, error) {
	now := time.Now()
	var sent []Delivery
	var missed []string
	for _, name := range to {
		m, id, err := draft(name, now)
		if err == nil {
			m = p.Message(m)
			err = m.Validate()
		}
		if err != nil {
			return sent, err
		}
		if err := p.Inbox(name).Send(ctx, m); err != nil {
			if len(to) == 1 {
				return sent, fmt.Errorf("send to %s: %w", name, err)
			}
			missed = append(missed, fmt.Sprintf("%s (%v)", name, err))
			continue
		}
		sent = append(sent, Delivery{To: name, RequestID: id, Message: m})
	}
	if len(missed) > 0 {
		return sent, &Undelivered{Missed: missed, Delivered: len(sent)}
	}
	return sent, nil
}

// Undelivered is a message written to some of its recipients only.
type Undelivered struct {
	Missed    []string // "name (why)"
	Delivered int
}

func (e *Undelivered) Error() string {
	return fmt.Sprintf("not delivered to %s; delivered to the %d others", strings.Join(e.Missed, ", "), e.Delivered)
}
