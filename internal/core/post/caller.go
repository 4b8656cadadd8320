// Package post is the one way paneteam writes a message into a teammate's
// inbox: whom it reaches (Recipients), who it is from (Caller.Sender), its
// colour, the check that a keyed teammate will believe it
// (Caller.CheckSignable), a protocol frame drafted from fields
// (Post.DraftFrame), its signature and the locked, atomic write
// (Post.Send, SendEach, SendLines); and how an inbox is opened for reading
// (InboxName, OpenInbox, the mark-read rule CheckMarkRead). 'paneteam
// send' and 'inbox', the MCP server's send_message and read_inbox, task
// assignment, a spawned teammate's first prompt and the dashboard all post
// through it; so do the other writers, through the entry points of
// entries.go: a shutdown request (lifecycle, the budget guard), the
// lead's answer to a request (approval), a teammate's idle notices and
// replies (turnend, teammate) and its notices to its lead (budget).
// internal/tests/writepath fails on a write around it.
package post

import (
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/team"
)

// Caller is the process that posts, as its environment describes it:
// $PANETEAM_AGENT (it runs inside that teammate), $PANETEAM_USER (the
// person's name in a team Claude Code leads) and where its signing keys
// live ($PANETEAM_STATE_DIR, ...).
type Caller struct {
	// Getenv reads the caller's environment; nil reads nothing.
	Getenv func(string) string
	// Warn shows a warning to the person (on stderr); nil drops it.
	Warn func(format string, args ...any)
}

// Env is the caller's variable k ("" when unset).
func (c Caller) Env(k string) string {
	if c.Getenv == nil {
		return ""
	}
	return c.Getenv(k)
}

func (c Caller) warn(format string, args ...any) {
	if c.Warn != nil {
		c.Warn(format, args...)
	}
}

// Agent is the teammate the caller runs inside ($PANETEAM_AGENT), or "".
func (c Caller) Agent() string { return c.Env("PANETEAM_AGENT") }

// Sender is who a message from the caller is from (team.ChooseSender):
// explicit is a --from the person typed ("" when none). In a team a live
// Claude Code process leads it is the caller's own name unless explicit
// says otherwise, and an explicit lead name is obeyed with a warning;
// elsewhere explicit, else $PANETEAM_AGENT, else team-lead. An error is a
// mistake in the caller's settings and names the fix.
func (c Caller) Sender(cfg *team.Config, explicit string) (string, error) {
	agent := c.Agent()
	if explicit == agent {
		explicit = "" // the default: the caller's own teammate
	}
	ch, err := team.ChooseSender(cfg, team.LeadOf(cfg), explicit, agent, c.Env("PANETEAM_USER"))
	if err != nil {
		return "", err
	}
	if ch.Warning != "" {
		c.warn("warning: %s", ch.Warning)
	}
	return ch.From, nil
}

// LeadSender is who writes as the team's lead, as a new teammate's first
// prompt is written: team-lead, except in a team a live Claude Code
// process leads, where only Claude's lead may: there it is the caller's
// own name (Sender without --from).
func (c Caller) LeadSender(cfg *team.Config) (string, error) {
	if !team.LeadOf(cfg).ClaudeLed() {
		return team.LeadName, nil
	}
	return c.Sender(cfg, "")
}

// Color is the colour a message from `from` wears: color when given (it
// must be a team colour), else the sender's team colour, else none.
func Color(cfg *team.Config, from, color string) (string, error) {
	if color != "" {
		if !team.ValidColor(color) {
			return "", &UsageError{fmt.Errorf("colour %q is not a team colour: use one of %s", color, strings.Join(team.Colors, ", "))}
		}
		return color, nil
	}
	if m := cfg.Member(from); m != nil {
		return m.Color, nil
	}
	return "", nil
}

// UsageError is a post refused for what was asked (a colour that is not
// a team colour): a front end shows it as a wrong call.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }
