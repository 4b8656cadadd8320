package dashboard

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
	"github.com/paneteam/paneteam/internal/core/teamwatch"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/internal/panes/backend"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

// Actions is what the dashboard does to a team. Live does it for real;
// model tests put a recorder in its place.
type Actions interface {
	// Refresh reads the team and its waiting requests now.
	Refresh(ctx context.Context) (*teamwatch.Snapshot, []approval.Request, error)
	// Requests lists the requests waiting for the lead, oldest first.
	Requests(ctx context.Context) ([]approval.Request, error)
	// Answer approves or denies r.
	Answer(ctx context.Context, r approval.Request, d approval.Decision) error
	// Send writes text into the member's inbox.
	Send(ctx context.Context, to, text string) error
	// ToggleHidden hides a shown pane or shows a hidden one, and says
	// which it is now.
	ToggleHidden(ctx context.Context, name string) (hidden bool, err error)
	// Stop asks the member to shut down, as 'paneteam shutdown' does.
	Stop(ctx context.Context, name string) (string, error)
	// Jump selects the member's pane in tmux.
	Jump(ctx context.Context, name string) error
	WorkActions
}

// Live acts on a team's files, panes and processes.
type Live struct {
	Team team.Team
	Lock lockfile.Options
	// Backend finds members' backends (liveness, hide/show, shutdown).
	Backend backend.Env
	// Caller is who posts the dashboard's messages and stops its members
	// (post.Caller: the sender, as 'paneteam send' chooses it, and the
	// signing rules). Its warnings must not reach the screen: leave Warn nil.
	Caller post.Caller
	// Keys holds keyed teammates' keys for answers (docs/PROTOCOL.md
	// §11); the zero value signs nothing.
	Keys provenance.Store
	// Snapshot options: liveness of panes.
	Watch teamwatch.Options
	// ShutdownTimeout bounds the wait for a teammate's answer to Stop.
	ShutdownTimeout time.Duration
	// The review view's: Dir is the lead's working tree (where the
	// dashboard started), Records paneteam's worktree records, Words how
	// a land is worded.
	Dir     string
	Records worktree.Records
	Words   LandWords
}

func (l *Live) lead() *approval.Lead { return &approval.Lead{Team: l.Team, Lock: l.Lock, Keys: l.Keys} }

// Refresh takes a snapshot and lists the waiting requests.
func (l *Live) Refresh(ctx context.Context) (*teamwatch.Snapshot, []approval.Request, error) {
	s, err := teamwatch.Take(ctx, l.Team, l.Watch)
	if err != nil {
		return nil, nil, err
	}
	reqs, err := l.Requests(ctx)
	return s, reqs, err
}

// Requests lists the requests waiting for the lead.
func (l *Live) Requests(context.Context) ([]approval.Request, error) {
	ls, err := l.lead().List()
	if err != nil {
		return nil, err
	}
	return ls.Waiting(), nil
}

// Answer writes the answer exactly as 'paneteam approve' and 'deny' do.
func (l *Live) Answer(ctx context.Context, r approval.Request, d approval.Decision) error {
	_, err := l.lead().AnswerRequest(ctx, r, d)
	return answerWords(err)
}

// answerWords words a refused answer by the dashboard's own keys, where
// the core names the part of the answer that does not fit.
func answerWords(err error) error {
	var de *approval.DecisionError
	if !errors.As(err, &de) {
		return err
	}
	if de.Field != approval.FieldAlways {
		return err // feedback and a plan's mode are named as the core names them
	}
	return errors.New(de.Words("A (always allow)"))
}

// Send posts a plain message the way 'paneteam send --to NAME TEXT'
// does (post.Caller.SendText).
func (l *Live) Send(ctx context.Context, to, text string) error {
	return l.Caller.SendText(ctx, l.Team, l.Lock, to, text)
}

// ToggleHidden hides or shows the member's pane (backend.SetHidden, as
// 'paneteam hide' and 'paneteam show').
func (l *Live) ToggleHidden(ctx context.Context, name string) (bool, error) {
	cfg, err := team.Load(l.Team.ConfigPath())
	if err != nil {
		return false, err
	}
	m := cfg.Member(name)
	if m == nil {
		return false, fmt.Errorf("%q is not a member of team %s", name, l.Team.Name)
	}
	if err := lifecycle.RefuseClaudeTeammate(cfg, m); err != nil {
		return false, err
	}
	hide := !backend.Hidden(cfg, m)
	return hide, backend.SetHidden(ctx, l.Backend, l.Team, l.Lock, m.Name, hide, nil)
}

// Stop sends a shutdown request and waits for the answer, as 'paneteam
// shutdown --name NAME' does (lifecycle.Options.StopOne); a member that
// cannot answer (a plain program) is ended at once, as there.
func (l *Live) Stop(ctx context.Context, name string) (string, error) {
	if team.IsLeadName(nil, name) {
		return "", errors.New("the lead is not stopped from here: it is you")
	}
	o := lifecycle.Options{Lock: l.Lock, Backend: l.Backend, Signer: l.Caller.Signer(), Caller: l.Caller}
	return o.StopOne(ctx, l.Team, name, "stopped from the paneteam dashboard", l.ShutdownTimeout)
}

// Jump selects the member's pane and its window on the member's own
// tmux server, only when that pane carries the member's @paneteam-agent
// (a pane paneteam made for it); inside tmux on that server the client
// is switched to it too.
func (l *Live) Jump(ctx context.Context, name string) error {
	cfg, err := team.Load(l.Team.ConfigPath())
	if err != nil {
		return err
	}
	m := cfg.Member(name)
	if m == nil {
		return fmt.Errorf("%q is not a member of team %s", name, l.Team.Name)
	}
	if m.Paneteam == nil || m.Paneteam.TmuxSocket == "" || m.TmuxPaneID == "" {
		return fmt.Errorf("%s has no tmux pane paneteam made: nothing to jump to", m.Name)
	}
	if backend.Hidden(cfg, m) {
		return fmt.Errorf("%s's pane is hidden: show it first (h)", m.Name)
	}
	srv := tmux.Server{Socket: m.Paneteam.TmuxSocket}
	p, err := srv.OwnedPane(ctx, m.TmuxPaneID, m.AgentID)
	if err != nil {
		return err
	}
	if _, err := srv.RunSeq(ctx, []string{"select-window", "-t", p.WindowID}, []string{"select-pane", "-t", p.ID}); err != nil {
		return fmt.Errorf("jump to %s's pane: %w", m.Name, err)
	}
	if here, _, _ := strings.Cut(l.Backend.Getenv("TMUX"), ","); here != "" && here == srv.Socket {
		// Best effort: a client may be attached elsewhere.
		srv.Run(ctx, "switch-client", "-t", p.ID) //nolint:errcheck
	}
	return nil
}
