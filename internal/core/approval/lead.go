package approval

import (
	"errors"
	"fmt"

	"github.com/paneteam/paneteam/team"
)

// ErrClaudeLeads refuses an answer in a team a Claude Code process leads:
// its lead answers there, and its teammates treat a reply written by
// anyone else as forged (docs/PROTOCOL.md §11).
var ErrClaudeLeads = errors.New("a Claude Code process leads this team")

// ErrNoKey refuses an answer to a keyed teammate whose key paneteam does
// not hold: an unsigned reply would count as forged, and a forged
// approval as a denial (§11).
var ErrNoKey = errors.New("this teammate only accepts signed answers, and paneteam does not hold its key")

// NoKeyError is ErrNoKey for one teammate's request.
type NoKeyError struct{ Member, ID string }

func (e *NoKeyError) Error() string {
	return fmt.Sprintf("%s: %v: start it again, or answer %s where its key is (PANETEAM_STATE_DIR)", e.Member, ErrNoKey, e.ID)
}

func (e *NoKeyError) Unwrap() error { return ErrNoKey }

// ErrNotLead refuses an answer from a process running inside a teammate.
var ErrNotLead = errors.New("only the lead answers requests")

// claudeLeads tells whether a live Claude Code process leads the team
// (config.json leadProcess, judged by Claude Code's own take-over test:
// team.LeadOf).
func claudeLeads(cfg *team.Config) bool { return team.LeadOf(cfg).ClaudeLed() }

// keyMissing tells whether m was started with --lead-verify-key (paneteam
// records that in its member row) under a key l does not hold: the key was
// removed, or this process looks in another state folder
// (PANETEAM_STATE_DIR, XDG_STATE_HOME).
func (l *Lead) keyMissing(m *team.Member) bool {
	if m.Paneteam == nil || !m.Paneteam.Keyed {
		return false
	}
	if l.Keys.Dir == "" {
		return true
	}
	k, err := l.Keys.Load(l.Team.InboxPath(m.Name))
	return err != nil || k == nil
}

// mayAnswer refuses where paneteam does not lead, or where the teammate
// would not believe its answer.
func (l *Lead) mayAnswer(cfg *team.Config, r Request) error {
	if claudeLeads(cfg) {
		return fmt.Errorf("team %s: %w (config.json leadProcess names a live process): answer %s in that Claude Code session",
			l.Team.Name, ErrClaudeLeads, r.ID)
	}
	m := cfg.Member(r.From)
	if m != nil && cfg.StartedByClaude(m) {
		// Claude Code's own teammate holds its lead's key: an answer
		// from anyone else counts as forged, a denial (§11), even once
		// that lead has died.
		return fmt.Errorf("%s: %w: Claude Code started it and only its Claude Code lead can answer %s",
			m.Name, ErrClaudeLeads, r.ID)
	}
	if m != nil && l.keyMissing(m) {
		return &NoKeyError{Member: m.Name, ID: r.ID}
	}
	return nil
}
