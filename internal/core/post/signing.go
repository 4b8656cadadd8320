package post

import (
	"fmt"

	"github.com/paneteam/paneteam/internal/claudecode/provenance"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
)

// The signing rules: who signs, with which keys, and when a write as the
// lead must be refused because the teammate would not believe it
// (docs/PROTOCOL.md §11, §14). provenance does the signing itself.

// ActsAsLead reports whether the caller speaks for the team's lead: it
// does not run inside a teammate ($PANETEAM_AGENT names none, or names
// team-lead). Only such a caller signs: a teammate's tool calls must never
// carry its lead's signature.
func (c Caller) ActsAsLead() bool {
	a := c.Agent()
	return a == "" || a == team.LeadName
}

// Keys is the caller's key store (provenance.DefaultStore).
func (c Caller) Keys() (provenance.Store, error) { return provenance.DefaultStore(c.Env) }

// Signer is what signs the caller's writes as the lead to keyed
// teammates, or nil when the caller does not act as the lead or has no
// key store.
func (c Caller) Signer() mailbox.Signer {
	if !c.ActsAsLead() {
		return nil
	}
	st, err := c.Keys()
	if err != nil {
		return nil
	}
	return provenance.Lead{Store: st}
}

// CheckSignable refuses to write as the lead (team-lead, user or system)
// to a teammate paneteam started with a signing key when the caller cannot
// sign for it: the teammate would show the entry as verified="false" and
// refuse what it asks (a shutdown waited for in vain), so saying why at
// once is better. It happens when the caller looks in another state
// folder than the spawn did. Inside another teammate, where nothing is
// ever signed, an explicit lead sender is obeyed with a warning, as in a
// team Claude Code leads.
func (c Caller) CheckSignable(t team.Team, cfg *team.Config, names []string, from string) error {
	if !team.IsLeadSender(from) {
		return nil
	}
	for _, name := range names {
		m := cfg.Member(name)
		if m == nil || m.Paneteam == nil || !m.Paneteam.Keyed {
			continue
		}
		if !c.ActsAsLead() {
			c.warn("warning: %s believes %s only when signed, and this process runs inside teammate %s, "+
				"which never signs: %s will show it as verified=\"false\" and refuse what it asks",
				m.Name, from, c.Agent(), m.Name)
			continue
		}
		st, err := c.Keys()
		if err != nil {
			return fmt.Errorf("%s believes %s only when signed, and its key cannot be found: %w", m.Name, from, err)
		}
		if k, err := st.Load(t.InboxPath(m.Name)); err != nil || k == nil {
			why := "no key in " + st.Dir
			if err != nil {
				why = err.Error()
			}
			return fmt.Errorf("%s believes %s only when signed, and its signing key is missing (%s): "+
				"run paneteam with the PANETEAM_STATE_DIR it was spawned with, or spawn it again", m.Name, from, why)
		}
	}
	return nil
}
