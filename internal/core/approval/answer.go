package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/term/visible"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// Refusals. Each comes wrapped in a message that names the request and
// what to do.
var (
	ErrUnknown   = errors.New("no such request")
	ErrAmbiguous = errors.New("ambiguous request id")
	ErrAnswered  = errors.New("already answered")
	ErrGone      = errors.New("teammate has left the team")
)

// AmbiguousError lists the requests a prefix matches.
type AmbiguousError struct {
	Prefix     string
	Candidates []Request
}

func (e *AmbiguousError) Error() string { return e.Words("the teammate it is from") }

// Words is the refusal with the other way to narrow it named as a front
// end names it ("--from NAME" on the command line).
func (e *AmbiguousError) Words(from string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %q matches %d requests; give more of the id (or %s):", ErrAmbiguous,
		visible.Line(e.Prefix), len(e.Candidates), from)
	for _, r := range e.Candidates {
		fmt.Fprintf(&b, "\n  %s  %s  %s", visible.Line(r.ID), visible.Line(r.From), r.Kind)
	}
	return b.String()
}

func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// UnknownError is an id no waiting request has; errors.Is matches
// ErrUnknown.
type UnknownError struct {
	ID   string // as asked, made safe to show
	Team string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("%v: no request %q is waiting for the lead of team %s", ErrUnknown, e.ID, e.Team)
}

func (e *UnknownError) Unwrap() error { return ErrUnknown }

// Lead answers, from paneteam, the requests waiting for one team's lead.
type Lead struct {
	Team team.Team
	Lock lockfile.Options
	// Keys holds the signing keys of the teammates paneteam started with
	// --lead-verify-key; answers to them are signed, and refused when the
	// key is missing (an unsigned answer counts as forged, docs/PROTOCOL.md
	// §11). The zero value holds no keys.
	Keys provenance.Store
	// Teammate, when set, names the teammate this process runs inside
	// ($PANETEAM_AGENT): it may list requests but not answer them, or any
	// teammate could approve its own or another's tool calls.
	Teammate string
	// TurnWait bounds how long the answer to a plan waits for its
	// teammate's turn to end before it is written (DefaultTurnWait when
	// zero; see there why).
	TurnWait time.Duration
}

// Open returns the lead of the team named teamName under root.
func Open(root, teamName string, lock lockfile.Options) (*Lead, error) {
	t, _, err := team.Open(root, teamName)
	if err != nil {
		return nil, err
	}
	return &Lead{Team: t, Lock: lock}, nil
}

// List reads the team's requests as they are now.
func (l *Lead) List() (*Listing, error) {
	cfg, err := team.Load(l.Team.ConfigPath())
	if err != nil {
		return nil, err
	}
	return Find(l.Team, cfg)
}

// Resolve finds the one request id names: an exact id, or a prefix of
// exactly one waiting request's id (answered requests stay in the
// archive forever, so they would soon make every prefix ambiguous). from,
// when not empty, keeps only that teammate's requests. A request that is
// no longer waiting is refused with the reason.
func (ls *Listing) Resolve(id, from string) (Request, error) {
	if id == "" {
		return Request{}, fmt.Errorf("%w: no request id given", ErrUnknown)
	}
	var exact, waiting, prefixed []Request
	for _, r := range ls.All {
		if from != "" && !strings.EqualFold(r.From, from) {
			continue
		}
		switch {
		case r.ID == id:
			exact = append(exact, r)
		case strings.HasPrefix(r.ID, id):
			prefixed = append(prefixed, r)
			if ls.State(r) == StateWaiting {
				waiting = append(waiting, r)
			}
		}
	}
	cands := exact
	if len(cands) == 0 {
		cands = waiting
	}
	if len(cands) == 0 {
		cands = prefixed
	}
	switch len(cands) {
	case 0:
		return Request{}, &UnknownError{ID: visible.Line(id), Team: ls.Team.Name}
	case 1:
		return cands[0], ls.waiting(cands[0])
	}
	return Request{}, &AmbiguousError{Prefix: id, Candidates: cands}
}

// waiting refuses a request that no longer waits, saying why.
func (ls *Listing) waiting(r Request) error {
	switch ls.State(r) {
	case StateAnswered:
		rec, _ := ls.Record(r)
		return answeredError(r, rec)
	case StateGone:
		return fmt.Errorf("%w: %s sent %s but is no longer a member of team %s, so nobody waits for the answer",
			ErrGone, visible.Line(r.From), visible.Line(r.ID), ls.Team.Name)
	}
	return nil
}

func answeredError(r Request, rec Record) error {
	verdict := "denied"
	if rec.Approved {
		verdict = "approved"
	}
	return fmt.Errorf("request %s from %s was %w (%s at %s); nothing was written",
		visible.Line(r.ID), visible.Line(r.From), ErrAnswered, verdict, rec.At)
}

// Result is one answer written.
type Result struct {
	Request  Request `json:"request"`
	Approved bool    `json:"approved"`
	// To is the teammate's inbox name; Frame the response written there.
	To    string          `json:"to"`
	Frame json.RawMessage `json:"response"`
}

// Answer resolves id (see Resolve) and answers it.
func (l *Lead) Answer(ctx context.Context, id, from string, d Decision) (Result, error) {
	ls, err := l.List()
	if err != nil {
		return Result{}, err
	}
	r, err := ls.Resolve(id, from)
	if err != nil {
		return Result{}, err
	}
	return l.AnswerRequest(ctx, r, d)
}

// AnswerRequest writes the answer to r into the teammate's inbox, from
// team-lead, through post (Post.Send, which stamps and signs what it
// writes), then records r as answered. The answer to a plan is written
// once the teammate's turn has ended (awaitTurnEnd). The record's lock is held across
// the check, the write and the record, so two answers to one request,
// from any number of processes, write exactly one response; the later one
// is refused with ErrAnswered.
func (l *Lead) AnswerRequest(ctx context.Context, r Request, d Decision) (Result, error) {
	if d.Now.IsZero() {
		d.Now = time.Now()
	}
	cfg, err := team.Load(l.Team.ConfigPath())
	if err != nil {
		return Result{}, err
	}
	if l.Teammate != "" {
		return Result{}, fmt.Errorf("%w: this process runs inside teammate %s (PANETEAM_AGENT); answer %s from the lead's own shell",
			ErrNotLead, visible.Line(l.Teammate), visible.Line(r.ID))
	}
	if err := l.mayAnswer(cfg, r); err != nil {
		return Result{}, err
	}
	m := cfg.Member(r.From)
	if m == nil || team.IsLeadName(cfg, m.Name) {
		// A row named the lead in another spelling (team.lead) is no
		// teammate: its inbox is the lead's own.
		return Result{}, fmt.Errorf("%w: %s sent %s but is no longer a member of team %s, so nobody waits for the answer",
			ErrGone, visible.Line(r.From), visible.Line(r.ID), l.Team.Name)
	}
	text, err := Response(r, d)
	if err != nil {
		return Result{}, err
	}
	res := Result{Request: r, Approved: d.Approve, To: m.Name, Frame: json.RawMessage(text)}
	if r.Kind == KindPlan {
		wait := l.TurnWait
		if wait <= 0 {
			wait = DefaultTurnWait
		}
		l.awaitTurnEnd(ctx, m.Name, wait)
	}
	path := AnsweredPath(l.Team)
	if err := ensureAnswered(path); err != nil {
		return Result{}, err
	}
	sent := false
	err = lockfile.Transform(ctx, path, l.Lock, func(old []byte) ([]byte, error) {
		recs, err := decodeAnswered(path, old)
		if err != nil {
			return nil, err
		}
		if rec, done := findRecord(recs, r); done {
			return nil, answeredError(r, rec)
		}
		if _, err := l.post(cfg).Send(ctx, m.Name, mailbox.Message{Text: text, Timestamp: mailbox.Timestamp(d.Now)}); err != nil {
			return nil, fmt.Errorf("write the answer to %s into %s's inbox: %w", visible.Line(r.ID), m.Name, err)
		}
		sent = true
		recs = append(recs, Record{ID: r.ID, From: r.From, Kind: r.Kind, Approved: d.Approve, At: mailbox.Timestamp(d.Now)})
		return encodeAnswered(recs)
	})
	if err != nil && sent {
		return res, fmt.Errorf("the answer to %s reached %s's inbox but could not be recorded as answered (%w): "+
			"do not answer it again", visible.Line(r.ID), m.Name, err)
	}
	if err != nil {
		return Result{}, err
	}
	l.markRead(ctx, r)
	return res, nil
}

// post is the lead's post to its teammates, through which the answer is
// written: from team-lead, signed with the lead's keys when it has them.
func (l *Lead) post(cfg *team.Config) *post.Post {
	p := &post.Post{Team: l.Team, Lock: l.Lock, From: team.LeadName, Config: cfg}
	if l.Keys.Dir != "" {
		p.Signer = provenance.Lead{Store: l.Keys}
	}
	return p
}

// markRead marks the answered request read in the lead's inbox, so that
// it no longer counts as unread mail and moves to the lead's archive like
// any message read. Best effort: the answer is written and recorded, and
// a request left unread is still known as answered.
func (l *Lead) markRead(ctx context.Context, r Request) {
	in := mailbox.New(l.Team.InboxPath(team.LeadName), l.Lock)
	unread, err := in.Unread()
	if err != nil {
		return
	}
	var done []mailbox.Message
	for _, m := range unread {
		if got, ok := parse(m); ok && got.key() == r.key() {
			done = append(done, m)
		}
	}
	if len(done) > 0 {
		in.MarkRead(ctx, done)
	}
}
