package teammate

import (
	"context"
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// handle acts on one message and reports whether the teammate must stop.
func (l *loop) handle(ctx context.Context, m mailbox.Message) (bool, error) {
	p, isProtocol := mailbox.Parse(m.Text)
	text := m.Text
	if isProtocol {
		switch p.Type {
		case mailbox.TypeShutdownRequest:
			req, _ := p.Value.(*mailbox.ShutdownRequest)
			if req == nil {
				req = &mailbox.ShutdownRequest{}
			}
			return l.shutdown(ctx, m, req)
		case mailbox.TypeTaskAssignment:
			ta, ok := p.Value.(*mailbox.TaskAssignment)
			if !ok {
				break
			}
			if l.own(m) {
				l.handled[key(m)] = true
				return false, nil
			}
			text = fmt.Sprintf("Task #%s assigned to you by %s: %s\n\n%s", ta.TaskID, ta.AssignedBy, ta.Subject, ta.Description)
		default:
			// Permission, plan and mode messages are for Claude Code's own
			// loop; a generic program cannot act on them, so they stay
			// unread for whoever can.
			l.handled[key(m)] = true
			if !l.ignored[p.Type] {
				l.ignored[p.Type] = true
				l.logf("leaving %s messages unread: this teammate cannot act on them", p.Type)
			}
			return false, nil
		}
	}
	if err := l.agent.Deliver(ctx, m, text); err != nil {
		if ctx.Err() != nil {
			return true, ctx.Err()
		}
		l.logf("could not deliver the message from %s: %v (will retry)", m.From, err)
		return false, nil
	}
	l.handled[key(m)] = true
	l.markRead(ctx, m)
	l.idleSent = false
	l.since = l.Now()
	if l.inactive {
		l.setActive(ctx, true)
	}
	return false, nil
}

// own reports whether m is a task_assignment the teammate sent itself:
// as in Claude Code, taking or starting a task writes one to the new
// owner, the teammate included, and telling it what it has just done
// costs it a turn for nothing. It stays unread in the inbox, where the
// teammate's own reading (read_inbox) still shows it.
func (l *loop) own(m mailbox.Message) bool {
	p, ok := mailbox.Parse(m.Text)
	return ok && p.Type == mailbox.TypeTaskAssignment && strings.EqualFold(m.From, l.Name)
}

// markRead marks exactly the delivered message read; the in-memory record
// keeps it from being delivered twice even if that write fails.
func (l *loop) markRead(ctx context.Context, m mailbox.Message) {
	if _, err := l.inbox.MarkRead(ctx, []mailbox.Message{m}); err != nil {
		l.logf("could not mark the message from %s read: %v", m.From, err)
	}
}

// shutdown answers a shutdown request. Only the lead may ask (the
// protocol's shutdown_request goes lead -> teammate), and, for a teammate
// holding the lead's key, only in an entry the lead signed; anyone else
// gets shutdown_rejected with the reason, as does a request the agent
// cannot honour because it would not stop.
func (l *loop) shutdown(ctx context.Context, m mailbox.Message, req *mailbox.ShutdownRequest) (bool, error) {
	l.handled[key(m)] = true
	l.markRead(ctx, m)
	reject := func(reason string) (bool, error) {
		l.logf("shutdown requested by %s: rejected (%s)", m.From, reason)
		return false, l.send(ctx, m.From, mailbox.ShutdownRejected{
			Type: mailbox.TypeShutdownRejected, RequestID: req.RequestID, From: l.Name,
			Reason: reason, Timestamp: mailbox.Timestamp(l.Now()),
		})
	}
	if !strings.EqualFold(m.From, l.lead) {
		return reject(fmt.Sprintf("only the team lead (%s) can shut %s down", l.lead, l.Name))
	}
	if l.verifier != nil {
		if err := l.verifier.Check(m); err != nil {
			return reject(fmt.Sprintf("the request is not signed by the lead (%v): %s was started with the lead's verify key "+
				"and obeys only a shutdown the lead signed", err, l.Name))
		}
	}
	l.logf("shutdown requested by %s: stopping", m.From)
	if err := l.agent.Stop(ctx); err != nil {
		return reject(fmt.Sprintf("could not stop: %v", err))
	}
	err := l.send(ctx, m.From, mailbox.ShutdownApproved{
		Type: mailbox.TypeShutdownApproved, RequestID: req.RequestID, From: l.Name,
		Timestamp: mailbox.Timestamp(l.Now()), PaneID: l.member.TmuxPaneID, BackendType: l.member.BackendType,
	})
	if err == nil {
		l.logf("shutdown approved")
	}
	return true, err
}

// maybeIdle tells the lead, once per stretch of quiet, that the teammate
// is idle (Claude Code's teammates idle after every turn), and records
// isActive:false in the team config as Claude Code does.
func (l *loop) maybeIdle(ctx context.Context) {
	last := l.since
	if a := l.agent.LastActivity(); a.After(last) {
		last = a
	}
	if l.idleSent || l.Now().Sub(last) < l.IdleAfter {
		return
	}
	l.idleSent = true
	if err := l.idle(ctx, mailbox.IdleAvailable, "", ""); err != nil {
		l.logf("could not tell %s this teammate is idle: %v", l.lead, err)
		return
	}
	l.setActive(ctx, false)
}

func (l *loop) idle(ctx context.Context, reason, summary, failure string) error {
	return l.send(ctx, l.lead, mailbox.IdleNotification{
		Type: mailbox.TypeIdle, From: l.Name, Timestamp: mailbox.Timestamp(l.Now()),
		IdleReason: reason, Summary: summary, FailureReason: failure,
	})
}

// ended reports to the lead that the agent ended by itself.
func (l *loop) ended(ctx context.Context) error {
	how, err := l.agent.Exit()
	reason, failure := mailbox.IdleAvailable, ""
	if err != nil {
		reason, failure = mailbox.IdleFailed, how
	}
	l.logf("%s", how)
	if serr := l.idle(ctx, reason, how, failure); serr != nil {
		l.logf("could not tell %s: %v", l.lead, serr)
	}
	l.setActive(ctx, false)
	return err
}

// halt stops the agent for why (Config.Halt) and tells the lead it ended.
func (l *loop) halt(ctx context.Context, why string) error {
	l.logf("stopping: %s", why)
	err := l.agent.Stop(ctx)
	if err != nil {
		l.logf("could not stop: %v", err)
	}
	if serr := l.idle(ctx, mailbox.IdleFailed, "stopped: "+why, why); serr != nil {
		l.logf("could not tell %s: %v", l.lead, serr)
	}
	l.setActive(ctx, false)
	return err
}

// send writes the frame v to to's inbox through post, from this
// teammate in its colour: the lead's inbox of a team paneteam leads keeps
// one plain idle notice per teammate (post.OpenInbox).
func (l *loop) send(ctx context.Context, to string, v any) error {
	p := &post.Post{Team: l.Team, Lock: l.Lock, From: l.Name, Color: l.member.Color, Config: l.cfg}
	_, err := p.SendFrame(ctx, to, v, l.Now())
	return err
}

func (l *loop) setActive(ctx context.Context, active bool) {
	_, err := l.Team.Update(ctx, l.Lock, func(cfg *team.Config) error {
		m := cfg.Member(l.Name)
		if m == nil || m.Active() == active {
			return team.ErrNoChange
		}
		m.IsActive = &active
		return nil
	})
	if err != nil {
		l.logf("could not record isActive=%v: %v", active, err)
		return
	}
	l.inactive = !active
}
