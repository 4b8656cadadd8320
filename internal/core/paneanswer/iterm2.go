package paneanswer

import (
	"context"
	"errors"
	"os/exec"
	"strings"

	"github.com/paneteam/paneteam/internal/core/leadpane"
	"github.com/paneteam/paneteam/iterm2"
	"github.com/paneteam/paneteam/team"
)

func init() { nativeLeads["iterm2"] = itermLead }

// itermLead is the iTerm2 session of the lead's record, through the it2
// program, while it exists and holds the lead: the session's tty (it2
// session list --json) is the lead's controlling terminal, and the lead
// is its foreground.
func itermLead(ctx context.Context, rec *leadpane.Record) (Target, error) {
	id := iterm2.SessionFromEnv(rec.ITermSession)
	if id == "" {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadTerminal, Detail: "iTerm2, without its session id recorded"}
	}
	bin, err := exec.LookPath("it2")
	if err != nil {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadTerminal, Detail: "iTerm2, whose it2 program is not on PATH here (" + iterm2.FixInstall + ")"}
	}
	c := iterm2.Client{Bin: bin}
	ss, err := c.Sessions(ctx)
	if errors.Is(err, iterm2.ErrAPIUnavailable) {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadTerminal, Detail: "iTerm2, whose Python API it2 cannot reach (" + iterm2.FixAPI + ")"}
	}
	if err != nil {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone, Detail: "its iTerm2 does not answer: " + err.Error()}
	}
	where := "iTerm2 session " + id
	for _, s := range ss {
		if strings.EqualFold(s.ID, id) {
			if err := leadHoldsTTY(rec.PID, s.TTY, where); err != nil {
				return Target{}, err
			}
			return Target{Name: team.LeadName, Native: itermSession{c, s.ID}}, nil
		}
	}
	return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone, Detail: where + " is closed"}
}

// itermSession types keys as the bytes iTerm2 sends for them by default
// (it2 session send injects text as typed, not key presses). Claude Code
// asks iTerm2 for kitty's keyboard protocol too (CSI > 1 u); a lone ESC
// is still Esc to it under that protocol, read after a short wait.
type itermSession struct {
	c  iterm2.Client
	id string
}

func (s itermSession) Text(ctx context.Context) (string, error) { return s.c.Screen(ctx, s.id) }
func (s itermSession) Send(ctx context.Context, data string) error {
	return s.c.Send(ctx, s.id, data)
}
func (s itermSession) Key(ctx context.Context, k string) error {
	return s.c.Send(ctx, s.id, legacyKey(k))
}
