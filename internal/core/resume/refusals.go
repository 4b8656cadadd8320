package resume

import (
	"fmt"
	"time"
)

// The refusals below name no command of a front end's: each front end
// words them as its own (the command line names 'paneteam claude').

// ClaudeTeamError refuses to resume the session team of a Claude Code
// lead: Claude Code brings its own team back when its session resumes.
type ClaudeTeamError struct {
	Team string
	Why  string // how the lead was found
}

func (e *ClaudeTeamError) Error() string {
	return fmt.Sprintf("team %s is the session team of a Claude Code lead (%s): paneteam resumes only teams it leads; "+
		"bring Claude's back by resuming its Claude Code session", e.Team, e.Why)
}

// BusyError is the resume lock held by another resume for as long as
// this one would wait.
type BusyError struct {
	Path string
	Held time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("another resume has held %s for %s: let it finish, then try again", e.Path, e.Held)
}
