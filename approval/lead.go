package approval

import (
	"errors"
	"fmt"

	"github.com/paneteam/paneteam/team"
)

// ErrClaudeLeads refuses an answer in a team a Claude Code process leads:
// its lead answers there, and its teammates treat a reply written by
// anyone else as forged (PROTOCOL-2.1.330.md §5).
var ErrClaudeLeads = errors.New("a Claude Code process leads this team")

// ErrNoKey refuses an answer to a keyed teammate whose key paneteam does
// not hold: an unsigned reply would count as forged, and a forged
// approval as a denial (§5).
var ErrNoKey = errors.New("this teammate only accepts signed answers, and paneteam does not hold its key")

// Seams for facts other packages are adding; swap on merge.
var (
	// claudeLeads tells whether a live Claude Code process leads the team
	// (config.json leadProcess, judged by Claude Code's own take-over
	// test: team.LeadOf).
	claudeLeads = func(cfg *team.Config) bool { return team.LeadOf(cfg).ClaudeLed() }
	// keyMissing tells whether m was started with --lead-verify-key under a
	// key paneteam does not hold. Until signing lands, paneteam starts its
	// Claude teammates without a key and records none for others: false.
	keyMissing = func(team.Team, *team.Config, *team.Member) bool { return false }
)

// mayAnswer refuses where paneteam does not lead, or where the teammate
// would not believe its answer.
func mayAnswer(t team.Team, cfg *team.Config, r Request) error {
	if claudeLeads(cfg) {
		return fmt.Errorf("team %s: %w (config.json leadProcess names a live process): answer %s in that Claude Code session",
			t.Name, ErrClaudeLeads, r.ID)
	}
	m := cfg.Member(r.From)
	if m != nil && keyMissing(t, cfg, m) {
		return fmt.Errorf("%s: %w: answer %s in the Claude Code session that started it", m.Name, ErrNoKey, r.ID)
	}
	return nil
}
