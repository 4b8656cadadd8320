package web

import (
	"context"
	"errors"
	"time"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/internal/core/approval"
	"github.com/paneteam/paneteam/internal/core/lifecycle"
	"github.com/paneteam/paneteam/internal/core/post"
	"github.com/paneteam/paneteam/internal/core/resume"
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
	// Resume brings back the members whose panes went away and says what
	// it did, a line each (resume.Result.Lines).
	Resume(ctx context.Context) ([]string, error)
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
	// Resuming is how Resume brings the team back, as 'paneteam resume
	// --team' does from the terminal paneteam web runs in: its launch
	// records, backends and lead process. Its Team is this Live's.
	Resuming resume.Options
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

// Send posts a plain message as 'paneteam send --to NAME TEXT' does
// (post.Caller.SendText).
func (l *Live) Send(ctx context.Context, to, text string) error {
	return l.Caller.SendText(ctx, l.Team, l.Lock, to, text)
}

// Stop sends a shutdown request and waits for the answer, as 'paneteam
// shutdown --name NAME' does (lifecycle.Options.StopOne).
func (l *Live) Stop(ctx context.Context, name string) (string, error) {
	return l.lifecycle().StopOne(ctx, l.Team, name, "stopped from paneteam web", l.ShutdownTimeout)
}

// Resume starts again every member whose pane or process is gone, as
// 'paneteam resume --team' does (resume.Team): the same judgement of who
// still runs, the same refusals, the same lines said of each member.
func (l *Live) Resume(ctx context.Context) ([]string, error) {
	if l.Resuming.Records.Dir == "" {
		return nil, errors.New("this paneteam web was started without paneteam's state folder, where the launch records are")
	}
	o := l.Resuming
	o.Team, o.DryRun = l.Team, false
	res, err := resume.Team(ctx, o)
	var lines []string
	if res != nil {
		lines = res.Lines()
	}
	return lines, err
}

func (l *Live) lifecycle() lifecycle.Options {
	return lifecycle.Options{Lock: l.Lock, Backend: l.Backend, Signer: l.Caller.Signer(), Caller: l.Caller}
}
