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
			return SenderChoice{}, &SenderError{Reason: SenderAgentIsLead, Name: agent, Team: cfg.Name}
		}
		return SenderChoice{From: agent}, nil
	}
	return PersonSender(cfg, user)
}

// PersonSender is the person's own name in a team Claude Code leads:
// PANETEAM_USER (user), else DefaultUser; refused when Claude Code
// reserves it or a member has it.
func PersonSender(cfg *Config, user string) (SenderChoice, error) {
	name := DefaultUser
	if user != "" {
		name = user
	}
	refuse := func(r SenderReason, err error) (SenderChoice, error) {
		return SenderChoice{}, &SenderError{Reason: r, Name: name, Team: cfg.Name, Default: user == "", Err: err}
	}
	switch {
	case IsLeadSender(name) || NormalizeName(name) == "main":
		return refuse(SenderReserved, nil)
	case CheckName("sender", name) != nil:
		return refuse(SenderBadName, CheckName("sender", name))
	case cfg.Member(name) != nil:
		return refuse(SenderIsMember, nil)
	}
	return SenderChoice{From: name}, nil
}

// Why a sender name was refused: each front end words it in its own
// terms (the variable or flag it was read from) from SenderError.
type SenderReason string

const (
	SenderAgentIsLead SenderReason = "agent is lead" // the agent's own name (ChooseSender's agent) is one only Claude Code's lead writes as
	SenderReserved    SenderReason = "reserved"      // the person's name is one Claude Code reserves
	SenderBadName     SenderReason = "bad name"      // the person's name is not a name (Err says why)
	SenderIsMember    SenderReason = "member"        // the person's name is a member's
)

// SenderError is a sender name refused before anything is written.
type SenderError struct {
	Reason  SenderReason
	Name    string // the refused name
	Team    string
	Default bool  // the person gave no name: Name is DefaultUser
	Err     error // SenderBadName: what is wrong with it
}

// Source is what the name came from, as a library caller knows it.
func (e *SenderError) Source() string {
	switch {
	case e.Reason == SenderAgentIsLead:
		return "agent name"
	case e.Default:
		return "the default sender name"
	}
	return "sender name"
}

func (e *SenderError) Error() string {
	source := e.Source()
	switch e.Reason {
	case SenderAgentIsLead:
		return fmt.Sprintf("%s %q is a name only Claude Code's lead may write as in team %s: write as your own name", source, e.Name, e.Team)
	case SenderReserved:
		return fmt.Sprintf("%s %q is reserved by Claude Code (team-lead, user, system, main): choose your own name", source, e.Name)
	case SenderBadName:
		return fmt.Sprintf("%s %q: %v", source, e.Name, e.Err)
	}
	return fmt.Sprintf("%s %q is the name of a member of team %s, so messages would look like theirs: choose a name of your own", source, e.Name, e.Team)
}

func (e *SenderError) Unwrap() error { return e.Err }
