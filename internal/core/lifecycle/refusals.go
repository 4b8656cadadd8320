package lifecycle

import (
	"errors"
	"fmt"
	"time"
)

// The refusals below name no command of a front end's: each front end
// words them as its own (the command line names 'paneteam cleanup').

// ErrLeadStays refuses to ask the team lead to shut down: a team ends
// with its lead, by deleting it.
var ErrLeadStays = errors.New("the team lead cannot be asked to shut down: delete the team once its members are gone")

// ClaudeTeamError refuses to delete the session team of a Claude Code
// lead that may be alive: Claude Code deletes it itself when it exits.
type ClaudeTeamError struct {
	Team string
	Why  string // how the lead was judged alive
}

func (e *ClaudeTeamError) Error() string {
	return fmt.Sprintf("team %s is the session team of a Claude Code process that may be alive (%s): "+
		"Claude Code deletes it itself when it exits; shut its teammates down instead", e.Team, e.Why)
}

// BusyError is the cleanup lock held by another cleanup for as long as
// this one would wait.
type BusyError struct {
	Path string
	Held time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("another cleanup has held %s for %s: let it finish, then try again", e.Path, e.Held)
}
