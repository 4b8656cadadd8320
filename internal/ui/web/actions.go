package web

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/core/lifecycle"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

// Actions is what the page does to a team. Live does it through the
// core operations, by the same rules as the command line.
type Actions interface {
	// Requests lists the requests waiting for the lead, oldest first.
	Requests(ctx context.Context) ([]approval.Request, error)
	// Answer approves or denies the request id from teammate from.
	Answer(ctx context.Context, id, from string, d approval.Decision) error
	// Send writes text into the inbox of to (a member, or post.Everyone).
	Send(ctx context.Context, to, text string) error
	// Stop asks the member to shut down and says how it ended.
	Stop(ctx context.Context, name string) (string, error)
}

// Live acts on a team's files, panes and processes.
type Live struct {
	Team    team.Team
	Lock    lockfile.Options
	Backend backend.Env
	// Caller posts the page's messages and stops its members, as 'paneteam
	// send' and 'shutdown' choose the sender and sign.
	Caller post.Caller
	// Keys signs answers to keyed teammates (docs/PROTOCOL.md §11).
	Keys            provenance.Store
	ShutdownTimeout time.Duration
}

func (l *Live) lead() *approval.Lead { return &approval.Lead{Team: l.Team, Lock: l.Lock, Keys: l.Keys} }

// Requests lists the requests waiting for the lead.
func (l *Live) Requests(context.Context) ([]approval.Request, error) {
	ls, err := l.lead().List()
	if err != nil {
		return nil, err
	}
	return ls.Waiting(), nil
}

// Answer resolves the request as 'paneteam approve ID --from NAME' does
// (an exact id; refused when answered already or its teammate left) and
// writes the answer Claude Code accepts.
func (l *Live) Answer(ctx context.Context, id, from string, d approval.Decision) error {
	_, err := l.lead().Answer(ctx, id, from, d)
	return err
}

// Send posts a plain message as 'paneteam send --to NAME TEXT' does.
func (l *Live) Send(ctx context.Context, to, text string) error {
	cfg, err := team.Load(l.Team.ConfigPath())
	if err != nil {
		return err
	}
	from, err := l.Caller.Sender(cfg, "")
	if err != nil {
		return err
	}
	names, err := post.Recipients(l.Team, cfg, from, post.Address{To: to})
	var re *post.RecipientError
	if errors.As(err, &re) {
		return fmt.Errorf("%q is not a member of team %s", to, l.Team.Name)
	} else if err != nil {
		return err
	}
	p, err := l.Caller.Open(l.Team, cfg, l.Lock, from, names, "")
	if err != nil {
		return err
	}
	_, err = p.SendEach(ctx, names, post.Plain(text, ""))
	return err
}

// Stop sends a shutdown request and waits for the answer, as 'paneteam
// shutdown --name NAME' does (docs/PROTOCOL.md §10).
func (l *Live) Stop(ctx context.Context, name string) (string, error) {
	if strings.EqualFold(name, team.LeadName) {
		return "", errors.New("the lead is not stopped from here")
	}
	res, err := lifecycle.Options{Lock: l.Lock, Backend: l.Backend, Signer: l.Caller.Signer(), Caller: l.Caller}.Shutdown(ctx, l.Team, lifecycle.ShutdownOptions{
		Names: []string{name}, Reason: "stopped from paneteam web", Timeout: l.ShutdownTimeout,
	})
	if err != nil {
		return "", err
	}
	if res == nil || len(res.Members) == 0 {
		if res != nil && len(res.LeftToClaude) > 0 {
			return "", fmt.Errorf("%s was left alone: Claude Code started it, and only Claude's lead can stop it", name)
		}
		return "", fmt.Errorf("%s was not asked", name)
	}
	m := res.Members[0]
	switch {
	case m.Error != "":
		return "", errors.New(m.Error)
	case m.Answer == lifecycle.AnswerRejected:
		return "", fmt.Errorf("%s refused: %s", m.Name, m.Reason)
	case m.Removed:
		return m.Name + " stopped: pane closed, removed from the team", nil
	}
	return "", fmt.Errorf("%s did not answer the shutdown request; still in the team", m.Name)
}
