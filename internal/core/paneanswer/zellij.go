package paneanswer

import (
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/paneteam/paneteam/internal/core/leadpane"
	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/internal/sys/proc"
	"github.com/paneteam/paneteam/team"
)

func init() { nativeLeads["zellij"] = zellijLead }

// zellijLead is the Zellij pane of the lead's record, while it exists and
// holds the lead. Zellij's list-panes names no pane's process or
// terminal, so the pane is known to hold the lead from the other side: a
// session numbers its panes once (a pane replaced in place gets a new
// id), the lead process (pid and start time, checked by the record) was
// started in that pane (its own environment names the session and the
// pane), and the pane is still there with its command running. Zellij
// before 0.44 can only type into the focused pane, which is not "only
// the lead's pane": refused.
func zellijLead(ctx context.Context, rec *leadpane.Record) (Target, error) {
	if rec.ZellijSession == "" || rec.ZellijPane == "" {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadTerminal, Detail: "Zellij, without its session and pane recorded"}
	}
	bin, err := exec.LookPath("zellij")
	if err != nil {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadTerminal, Detail: "Zellij, whose program is not on PATH here"}
	}
	p := &native.ZellijPane{Bin: bin, Session: rec.ZellijSession, SocketDir: rec.ZellijSockets, ID: rec.ZellijPane}
	where := fmt.Sprintf("pane %s of the Zellij session %s", p.ID, p.Session)
	env, err := proc.Environ(rec.PID)
	if err != nil || env["ZELLIJ_SESSION_NAME"] != p.Session || env["ZELLIJ_PANE_ID"] != p.ID {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone,
			Detail: fmt.Sprintf("%s does not hold the lead (process %d), which was not started there", where, rec.PID)}
	}
	switch err := p.Check(ctx); {
	case errors.Is(err, native.ErrZellijTooOld):
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadTerminal,
			Detail: "a Zellij older than 0.44, whose actions type into the focused pane rather than the lead's (update Zellij)"}
	case errors.Is(err, native.ErrNoZellijPane):
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone, Detail: err.Error()}
	case err != nil:
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone, Detail: "its Zellij session does not answer: " + err.Error()}
	}
	if err := leadInFront(rec.PID, where); err != nil {
		return Target{}, err
	}
	return Target{Name: team.LeadName, Native: zellijPane{p}}, nil
}

// zellijKeys are Keys by Zellij's send-keys names where they differ.
var zellijKeys = map[string]string{"Shift-Tab": "Shift Tab"}

type zellijPane struct{ *native.ZellijPane }

// Key presses k with send-keys, which encodes it as the lead asked
// (Claude Code turns on kitty's keyboard protocol, which Zellij 0.44
// honours).
func (z zellijPane) Key(ctx context.Context, k string) error {
	if n, ok := zellijKeys[k]; ok {
		k = n
	}
	return z.ZellijPane.Key(ctx, k)
}
