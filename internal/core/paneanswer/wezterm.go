package paneanswer

import (
	"context"
	"errors"
	"os/exec"

	"github.com/paneteam/paneteam/internal/core/leadpane"
	"github.com/paneteam/paneteam/internal/panes/native"
	"github.com/paneteam/paneteam/team"
)

func init() { nativeLeads["wezterm"] = weztermLead }

// weztermLead is the WezTerm pane of the lead's record, while it exists
// and holds the lead: the pane's terminal (list's tty_name) is the lead's
// controlling terminal, and the lead is its foreground.
func weztermLead(ctx context.Context, rec *leadpane.Record) (Target, error) {
	if rec.WezTermPane == "" {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadTerminal, Detail: "WezTerm, without its pane id recorded"}
	}
	bin, err := exec.LookPath("wezterm")
	if err != nil {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: LeadTerminal, Detail: "WezTerm, whose program is not on PATH here"}
	}
	p := &native.WezTermPane{Bin: bin, Socket: rec.WezTermSocket, ID: rec.WezTermPane}
	tty, err := p.TTY(ctx)
	if errors.Is(err, native.ErrNoWezTermPane) {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone, Detail: err.Error()}
	}
	if err != nil {
		return Target{}, &RefusedError{Name: team.LeadName, Reason: Gone, Detail: "its WezTerm does not answer: " + err.Error()}
	}
	if err := leadHoldsTTY(rec.PID, tty, "WezTerm pane "+p.ID); err != nil {
		return Target{}, err
	}
	return Target{Name: team.LeadName, Native: wezPane{p}}, nil
}

// wezPane presses keys as the bytes WezTerm sends for them by default.
// Claude Code asks WezTerm for kitty's keyboard protocol (2.1.88 writes
// CSI > 1 u when TERM_PROGRAM is WezTerm, as for iTerm2, kitty, Ghostty
// and tmux), which WezTerm honours only when its configuration sets
// enable_kitty_keyboard = true (off by default,
// https://wezterm.org/config/lua/config/enable_kitty_keyboard.html):
// the legacy bytes are what the lead reads there.
type wezPane struct{ *native.WezTermPane }

func (w wezPane) Key(ctx context.Context, k string) error { return w.Send(ctx, legacyKey(k)) }
