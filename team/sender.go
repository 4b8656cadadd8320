package team

import (
	"fmt"
)

// DefaultUser is the name a person writes under, in a team a live Claude
// Code process leads, when neither PANETEAM_AGENT nor PANETEAM_USER says
// otherwise.
const DefaultUser = "human"

// SenderChoice is who a paneteam write is from, and what to tell the
// person about it.
type SenderChoice struct {
	From string
	// Warning, if set, is to be shown: the write will look forged to
	// Claude Code.
	Warning string
}

// ChooseSender decides the sender of a message paneteam writes into cfg's
// team. explicit is --from as typed ("" if not); agent is $PANETEAM_AGENT
// (the caller is that teammate); user is $PANETEAM_USER.
//
// In a team a live Claude Code process leads, only that process may write
// as team-lead, user or system (Claude Code shows anything else under
// those names as verified="false" and refuses its protocol actions,
// docs/PROTOCOL.md §11): an explicit --from is obeyed with a warning;
// otherwise the sender is the caller's own name: the teammate it runs
// in, else the person's (PANETEAM_USER, default "human"), which must be
// neither reserved nor a member's. Elsewhere paneteam speaks for the
// lead, as before: --from, else $PANETEAM_AGENT, else team-lead.
func ChooseSender(cfg *Config, lead Lead, explicit, agent, user string) (SenderChoice, error) {
	if !lead.ClaudeLed() {
		switch {
		case explicit != "":
			return SenderChoice{From: explicit}, nil
		case agent != "":
			return SenderChoice{From: agent}, nil
		}
		return SenderChoice{From: LeadName}, nil
	}
	if explicit != "" {
		ch := SenderChoice{From: explicit}
		if IsLeadSender(explicit) {
			ch.Warning = fmt.Sprintf("team %s is led by a live Claude Code process (pid %d): a message from %q "+
				"that Claude Code did not write is shown to its agents as unverified (verified=\"false\") and its protocol actions are refused",
				cfg.Name, lead.PID, explicit)
		}
		return ch, nil
	}
	if agent != "" {
		if IsLeadSender(agent) {
			return SenderChoice{}, fmt.Errorf("PANETEAM_AGENT=%q is a name only Claude Code's lead may write as in team %s: "+
				"unset it, or pass --from with your own name", agent, cfg.Name)
		}
		return SenderChoice{From: agent}, nil
	}
	return PersonSender(cfg, user)
}

// PersonSender is the person's own name in a team Claude Code leads:
// PANETEAM_USER (user), else DefaultUser; refused when Claude Code
// reserves it or a member has it.
func PersonSender(cfg *Config, user string) (SenderChoice, error) {
	name, how := DefaultUser, "the default sender name"
	if user != "" {
		name, how = user, "PANETEAM_USER"
	}
	switch {
	case IsLeadSender(name) || NormalizeName(name) == "main":
		return SenderChoice{}, fmt.Errorf("%s %q is reserved by Claude Code (team-lead, user, system, main): "+
			"set PANETEAM_USER to your own name, e.g. PANETEAM_USER=alex", how, name)
	case CheckName("sender", name) != nil:
		return SenderChoice{}, fmt.Errorf("%s %q: %v", how, name, CheckName("sender", name))
	case cfg.Member(name) != nil:
		return SenderChoice{}, fmt.Errorf("%s %q is the name of a member of team %s, so messages would look like theirs: "+
			"set PANETEAM_USER to a name of your own, or pass --from", how, name, cfg.Name)
	}
	return SenderChoice{From: name}, nil
}
