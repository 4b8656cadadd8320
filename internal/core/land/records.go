package land

import (
	"errors"
	"fmt"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// The record lookups review and land need, over worktree's store (which
// lists every record of every team).

// TeamRecords are the records of team, every team's when team is "".
func TeamRecords(recs worktree.Records, team string) ([]worktree.Record, []error) {
	list, errs := recs.List()
	if team == "" {
		return list, errs
	}
	var out []worktree.Record
	for _, r := range list {
		if r.Team == team {
			out = append(out, r)
		}
	}
	return out, errs
}

// ErrNoRecord is a teammate paneteam gave no worktree it still knows of.
var ErrNoRecord = errors.New("no worktree of that teammate is recorded")

// AmbiguousError is a teammate name several teams' records share.
type AmbiguousError struct {
	Name  string
	Teams []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("teammates of %d teams are called %s (%v): name the team", len(e.Teams), e.Name, e.Teams)
}

// FindRecord is the record of teammate name, in team when team is given.
// A teammate that has ended and left the team is still found: the record
// is paneteam's own, in its state folder.
func FindRecord(recs worktree.Records, team, name string) (worktree.Record, error) {
	list, _ := TeamRecords(recs, team)
	var found []worktree.Record
	for _, r := range list {
		if r.Member == name {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 0:
		return worktree.Record{}, fmt.Errorf("%s: %w", name, ErrNoRecord)
	case 1:
		return found[0], nil
	}
	var teams []string
	for _, r := range found {
		teams = append(teams, r.Team)
	}
	return worktree.Record{}, &AmbiguousError{Name: name, Teams: teams}
}
