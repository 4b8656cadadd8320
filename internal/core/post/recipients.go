package post

import (
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/team"
)

// Everyone is the recipient that means every member but the sender, as
// Claude Code's SendMessage spells a broadcast.
const Everyone = "*"

// Address is whom a message is for, as a front end was asked.
type Address struct {
	// To is a member's name, or Everyone; "" names nobody.
	To string
	// CreateInbox lets To be a name that is not a member: its inbox is
	// made, and nobody may read it. Claude Code's SendMessage refuses such
	// a name (docs/PROTOCOL.md §6); only a person asks for this.
	CreateInbox bool
	// NotSelf refuses the sender's own name: a teammate that writes to
	// itself reads its own words back as news. A person writing with
	// --from alice to alice writes into someone else's inbox, so the
	// command line leaves it unset.
	NotSelf bool
}

// Why a recipient was refused: each front end words it in its own terms
// (flags, tool arguments) from RecipientError.
const (
	NoRecipient      = "no recipient"       // To is empty
	NotMember        = "not a member"       // To names no member (and CreateInbox is unset)
	BadName          = "bad name"           // CreateInbox, and To cannot name an inbox (Err says why)
	Self             = "self"               // NotSelf, and To is the sender
	NobodyElse       = "nobody else"        // Everyone, and the sender is the only member
	EveryoneNewInbox = "everyone new inbox" // Everyone with CreateInbox: there is no one new inbox to make
)

// RecipientError is a message refused for whom it is addressed to,
// before anything is written.
type RecipientError struct {
	Reason  string
	To      string   // the name as asked
	From    string   // the sender
	Team    string   // the team's name
	Members []string // the team's members, to choose from
	Err     error    // BadName: what is wrong with the name
}

func (e *RecipientError) Error() string {
	members := strings.Join(e.Members, ", ")
	switch e.Reason {
	case NoRecipient:
		return fmt.Sprintf("no recipient: name a member or %q for everyone (members: %s)", Everyone, members)
	case NotMember:
		return fmt.Sprintf("%q is not a member of team %s (members: %s)", e.To, e.Team, members)
	case BadName:
		return e.Err.Error()
	case Self:
		return fmt.Sprintf("%q is the sender: name another member (%s)", e.To, members)
	case NobodyElse:
		return fmt.Sprintf("nobody to send to: %s is the only member of team %s", e.From, e.Team)
	}
	return "a new inbox is made for one name, not for everyone"
}

func (e *RecipientError) Unwrap() error { return e.Err }

// Recipients is the inboxes a message from `from` addressed to a goes
// to, in the team's order: one member's name as the config spells it;
// for Everyone every member but the sender (compared as Claude Code
// compares names, ignoring case); or, with CreateInbox, the file name of
// a new inbox. It refuses, with a *RecipientError, what Claude Code's
// SendMessage would not write.
func Recipients(t team.Team, cfg *team.Config, from string, a Address) ([]string, error) {
	to := strings.TrimSpace(a.To)
	refuse := func(reason string, err error) error {
		return &RecipientError{Reason: reason, To: a.To, From: from, Team: t.Name, Members: cfg.MemberNames(), Err: err}
	}
	switch {
	case to == "":
		return nil, refuse(NoRecipient, nil)
	case to == Everyone && a.CreateInbox:
		return nil, refuse(EveryoneNewInbox, nil)
	case to == Everyone:
		var names []string
		for _, m := range cfg.Members {
			if !strings.EqualFold(m.Name, from) {
				names = append(names, m.Name)
			}
		}
		if len(names) == 0 {
			return nil, refuse(NobodyElse, nil)
		}
		return names, nil
	}
	if m := cfg.Member(to); m != nil {
		if a.NotSelf && strings.EqualFold(m.Name, from) {
			return nil, refuse(Self, nil)
		}
		return []string{m.Name}, nil
	}
	if !a.CreateInbox {
		return nil, refuse(NotMember, nil)
	}
	if err := team.CheckName("recipient", to); err != nil {
		return nil, refuse(BadName, err)
	}
	return []string{team.SanitizePath(to)}, nil
}
