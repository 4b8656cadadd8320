package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Answers a teammate can give to a shutdown request.
const (
	AnswerApproved = "approved"
	AnswerRejected = "rejected"
	AnswerNone     = "none" // no answer before the timeout
	AnswerGone     = "gone" // its pane had already closed: nobody to ask
	// AnswerExited: asked, it ended (its pane or process is gone) without
	// an answer paneteam saw. That counts as approval: in a team Claude
	// Code leads, Claude's own poller may take the teammate's
	// shutdown_approved from the lead's inbox before paneteam reads it.
	AnswerExited = "exited"
	// AnswerEnded: paneteam recorded at its start that the member runs a
	// plain program, which never reads its inbox and so can never answer
	// (team.Member.Answers). It is not asked: its pane is closed at once,
	// as kill-pane closes it, instead of being waited on for the timeout.
	AnswerEnded = "ended"
)

// ClaudeTeammateError refuses to stop a teammate Claude Code started:
// only its lead can (docs/PROTOCOL.md §10: a shutdown_request from
// anyone else is refused as forged, and paneteam cannot prove the pane
// its own).
type ClaudeTeammateError struct {
	Team, Name string
	InProcess  bool
}

func (e *ClaudeTeammateError) Error() string {
	where := "in a pane of its own"
	if e.InProcess {
		where = "inside its own process"
	}
	return fmt.Sprintf("%s was started by Claude Code (%s), and only Claude Code's lead can stop it: "+
		"Claude Code refuses a shutdown request written by anyone else. Ask Claude's lead, in that Claude Code session, to shut %s down", e.Name, where, e.Name)
}

// RefuseClaudeTeammate returns a *ClaudeTeammateError when m, in a team
// Claude Code leads (by leadProcess), is a teammate Claude Code started.
func RefuseClaudeTeammate(cfg *team.Config, m *team.Member) error {
	if _, claudeLed := cfg.LeadProcess(); !claudeLed || !cfg.StartedByClaude(m) {
		return nil
	}
	return &ClaudeTeammateError{Team: cfg.Name, Name: m.Name, InProcess: cfg.RunBy(m) == team.RunByClaudeInProcess}
}

// DefaultShutdownTimeout is how long Shutdown waits for answers unless
// told otherwise.
const DefaultShutdownTimeout = 30 * time.Second

// ShutdownOptions says whom to ask to shut down and how long to wait.
type ShutdownOptions struct {
	Names  []string // members to ask; or All
	All    bool     // every member but the lead, idle ones included
	Reason string   // passed on in the request
	// Timeout bounds the wait for answers (default DefaultShutdownTimeout).
	Timeout time.Duration
	// Force closes the panes of members who refused or did not answer,
	// once the timeout has passed.
	Force bool
	// Grace is how long an approving teammate may take to exit by itself
	// before its pane is closed for it (default 3 s).
	Grace time.Duration
	// Poll is how often the lead's inbox is read (default 100 ms).
	Poll time.Duration
	Now  func() time.Time
}

func (s *ShutdownOptions) defaults() {
	if s.Timeout <= 0 {
		s.Timeout = DefaultShutdownTimeout
	}
	if s.Grace <= 0 {
		s.Grace = 3 * time.Second
	}
	if s.Poll <= 0 {
		s.Poll = 100 * time.Millisecond
	}
	if s.Now == nil {
		s.Now = time.Now
	}
}

// ShutdownMember is the outcome for one member.
type ShutdownMember struct {
	Departure
	RequestID string `json:"requestId,omitempty"`
	Answer    string `json:"answer"`
	// Reason is the teammate's reason for refusing.
	Reason string `json:"reason,omitempty"`
	// Forced: the member refused or did not answer and --force closed it.
	Forced bool `json:"forced,omitempty"`
}

// ShutdownResult is the outcome for every member asked.
type ShutdownResult struct {
	Team    string           `json:"team"`
	Members []ShutdownMember `json:"members"`
	// LeftToClaude are the teammates Claude Code started, which All
	// leaves to Claude's lead (see ClaudeTeammateError).
	LeftToClaude []string `json:"leftToClaude,omitempty"`
}

// Remaining lists the members still in the team (refused, silent, or
// their pane could not be closed).
func (r *ShutdownResult) Remaining() []ShutdownMember {
	var out []ShutdownMember
	for _, m := range r.Members {
		if !m.Removed {
			out = append(out, m)
		}
	}
	return out
}

// Shutdown asks members to shut down, as Claude Code's lead does: a
// shutdown_request in each one's inbox, from team-lead, then a wait for a
// shutdown_approved or shutdown_rejected with the same requestId in the
// lead's inbox (only those answers are marked read). Approving members
// leave the team (see Depart); with Force so do the others once the
// timeout has passed. Idle members are asked like any other: idle is not
// dead. A member whose pane has already gone leaves without being asked,
// and so does one recorded as unable to answer (AnswerEnded). A keyed
// member this process cannot sign for is refused at once, before any
// request is written (*UnsignedError), unless so.Force.
func (o Options) Shutdown(ctx context.Context, t team.Team, so ShutdownOptions) (*ShutdownResult, error) {
	so.defaults()
	cfg, err := team.Load(t.ConfigPath())
	if err != nil {
		return nil, err
	}
	targets, left, err := shutdownTargets(cfg, so)
	if err != nil {
		return nil, err
	}
	if err := o.checkSignable(t, cfg, targets, so); err != nil {
		return nil, err
	}
	res := &ShutdownResult{Team: t.Name, LeftToClaude: left}
	for _, m := range targets {
		res.Members = append(res.Members, o.ask(ctx, t, cfg, m, so))
	}
	waitErr := o.awaitAnswers(ctx, t, cfg, res, so)
	if waitErr == nil {
		o.graceForApproved(ctx, cfg, res, so)
	}
	var leaving []string
	for i, m := range res.Members {
		switch {
		case m.Error != "":
		case m.Answer == AnswerApproved || m.Answer == AnswerGone || m.Answer == AnswerExited || m.Answer == AnswerEnded:
			leaving = append(leaving, m.Name)
		case so.Force && waitErr == nil:
			res.Members[i].Forced = true
			leaving = append(leaving, m.Name)
		}
	}
	if len(leaving) == 0 {
		return res, waitErr
	}
	deps, err := o.Depart(ctx, t, leaving)
	for _, d := range deps {
		for i := range res.Members {
			if strings.EqualFold(res.Members[i].Name, d.Name) {
				res.Members[i].Departure = d
			}
		}
	}
	if waitErr != nil {
		return res, waitErr
	}
	return res, err
}

// shutdownTargets resolves the members to ask; unknown names, and
// teammates Claude Code started, are refused before anything is sent.
// All asks every member paneteam may stop and lists the others in left.
func shutdownTargets(cfg *team.Config, so ShutdownOptions) (out []team.Member, left []string, err error) {
	if so.All {
		for i := range cfg.Members {
			m := &cfg.Members[i]
			switch {
			case team.IsLeadName(cfg, m.Name):
			case RefuseClaudeTeammate(cfg, m) != nil:
				left = append(left, m.Name)
			default:
				out = append(out, *m)
			}
		}
		return out, left, nil
	}
	if len(so.Names) == 0 {
		return nil, nil, fmt.Errorf("no member named: give member names or ask every member")
	}
	seen := map[string]bool{}
	for _, n := range so.Names {
		m := cfg.Member(n)
		if m == nil {
			return nil, nil, fmt.Errorf("%q is not a member of team %s (members: %s)", n, cfg.Name, strings.Join(cfg.MemberNames(), ", "))
		}
		if team.IsLeadName(cfg, m.Name) {
			return nil, nil, ErrLeadStays
		}
		if err := RefuseClaudeTeammate(cfg, m); err != nil {
			return nil, nil, err
		}
		if !seen[m.Name] {
			seen[m.Name] = true
			out = append(out, *m)
		}
	}
	return out, nil, nil
}

// ask sends one member its shutdown_request, unless its pane is already
// gone or it cannot answer one.
func (o Options) ask(ctx context.Context, t team.Team, cfg *team.Config, m team.Member, so ShutdownOptions) ShutdownMember {
	r := ShutdownMember{Departure: Departure{Name: m.Name}, Answer: AnswerNone}
	if alive, known := o.alive(ctx, cfg, &m); known && !alive {
		r.Answer = AnswerGone
		return r
	}
	if !m.Answers() {
		r.Answer = AnswerEnded
		return r
	}
	p := &post.Post{Team: t, Lock: o.Lock, From: team.LeadName, Signer: o.Signer, Config: cfg}
	id, err := p.AskShutdown(ctx, m.Name, so.Reason, so.Now())
	r.RequestID = id
	if err != nil {
		r.Error = fmt.Sprintf("could not send the shutdown request: %v", err)
	}
	return r
}

// checkSignable refuses, before anything is written, a shutdown a keyed
// target would not believe because this process cannot sign as its lead
// (post.Caller.CheckSignable): the request would be waited on for the
// whole timeout in vain. With Force it goes ahead: the panes are closed
// after the timeout anyway.
func (o Options) checkSignable(t team.Team, cfg *team.Config, targets []team.Member, so ShutdownOptions) error {
	if so.Force {
		return nil
	}
	var asked []string
	for _, m := range targets {
		if m.Answers() {
			asked = append(asked, m.Name)
		}
	}
	c := o.Caller
	if c.Getenv == nil {
		c.Getenv = o.getenv
	}
	if err := c.CheckSignable(t, cfg, asked, team.LeadName); err != nil {
		return &UnsignedError{Err: err}
	}
	return nil
}

// UnsignedError is a shutdown refused before it was asked: a keyed
// teammate would not believe a request this process cannot sign. Force
// closes its pane after the timeout instead.
type UnsignedError struct{ Err error }

func (e *UnsignedError) Error() string { return e.Err.Error() }
func (e *UnsignedError) Unwrap() error { return e.Err }

// awaitAnswers reads the lead's inbox until every request is answered,
// the member's pane is gone, or the timeout passes. It returns ctx's error
// if the wait was interrupted.
func (o Options) awaitAnswers(ctx context.Context, t team.Team, cfg *team.Config, res *ShutdownResult, so ShutdownOptions) error {
	pending := map[string]int{}
	for i, m := range res.Members {
		if m.Answer == AnswerNone && m.Error == "" {
			pending[m.RequestID] = i
		}
	}
	lead := mailbox.New(t.InboxPath(team.LeadName), o.Lock)
	deadline := time.Now().Add(so.Timeout)
	lastLiveness := time.Now()
	for len(pending) > 0 {
		if err := o.collect(ctx, lead, pending, res); err != nil {
			return err
		}
		if len(pending) == 0 || !time.Now().Before(deadline) {
			return nil
		}
		// A teammate whose pane closed after it was asked has ended: its
		// answer may have gone to Claude Code's own poller (a Claude-led
		// team), or it crashed or was closed by hand. Either way it will
		// not answer, and it is gone: that is the shutdown asked for.
		if time.Since(lastLiveness) >= time.Second {
			lastLiveness = time.Now()
			for id, i := range pending {
				m := cfg.Member(res.Members[i].Name)
				if alive, known := o.alive(ctx, cfg, m); known && !alive {
					res.Members[i].Answer = AnswerExited
					delete(pending, id)
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for shutdown answers: %w", ctx.Err())
		case <-time.After(so.Poll):
		}
	}
	return nil
}

// collect records the answers among the lead's unread messages and marks
// exactly those read; everything else in the inbox is left for the lead.
func (o Options) collect(ctx context.Context, lead *mailbox.Inbox, pending map[string]int, res *ShutdownResult) error {
	msgs, err := lead.Unread()
	if err != nil {
		return fmt.Errorf("read the lead's inbox: %w", err)
	}
	var answered []mailbox.Message
	for _, msg := range msgs {
		p, ok := mailbox.Parse(msg.Text)
		if !ok {
			continue
		}
		switch v := p.Value.(type) {
		case *mailbox.ShutdownApproved:
			if i, ok := pending[v.RequestID]; ok {
				res.Members[i].Answer = AnswerApproved
				delete(pending, v.RequestID)
				answered = append(answered, msg)
			}
		case *mailbox.ShutdownRejected:
			if i, ok := pending[v.RequestID]; ok {
				res.Members[i].Answer, res.Members[i].Reason = AnswerRejected, v.Reason
				delete(pending, v.RequestID)
				answered = append(answered, msg)
			}
		}
	}
	if len(answered) > 0 {
		if _, err := lead.MarkRead(ctx, answered); err != nil {
			return fmt.Errorf("mark shutdown answers read: %w", err)
		}
	}
	return nil
}

// graceForApproved gives approving teammates a moment to exit by
// themselves (saving what they must) before their panes are closed.
func (o Options) graceForApproved(ctx context.Context, cfg *team.Config, res *ShutdownResult, so ShutdownOptions) {
	deadline := time.Now().Add(so.Grace)
	for {
		waiting := false
		for _, r := range res.Members {
			if r.Answer != AnswerApproved {
				continue
			}
			if alive, known := o.alive(ctx, cfg, cfg.Member(r.Name)); known && alive {
				waiting = true
			}
		}
		if !waiting || !time.Now().Before(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(so.Poll):
		}
	}
}
