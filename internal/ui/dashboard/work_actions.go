package dashboard

import (
	"context"
	"fmt"

	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/core/worktree"
	"github.com/paneteam/paneteam/team"
)

// Work is the review view's reading: the teammates with work, as
// 'paneteam review' finds them, and the lead's branch they would land on
// ("" on a detached HEAD).
type Work struct {
	Onto    string
	Entries []land.Entry
}

// WorkActions are the review view's: the same core operations as
// 'paneteam review' and 'paneteam land'.
type WorkActions interface {
	// Review reads the team's teammates with work (land.Review).
	Review(ctx context.Context) (Work, error)
	// Diff is a teammate's change as a diff a program reads
	// (land.TeammateDiff with DiffOptions.Parse).
	Diff(ctx context.Context, name string) (land.Diff, error)
	// Comment sends the teammate one comment, as 'paneteam review NAME
	// --comment FILE:LINE TEXT' does (land.SendComments).
	Comment(ctx context.Context, name string, c land.Comment) error
	// Land lands the teammate by the default mode, as 'paneteam land
	// NAME' does (land.Land), and says what was done and its undo; a
	// refusal is worded as the command line words it.
	Land(ctx context.Context, name string) (string, error)
}

// LandWords word a land for the review view as 'paneteam land' words it
// on the command line (set by internal/cli); nil shows the core's own.
type LandWords struct {
	Landed  func(land.Lead, worktree.Record, *land.Result) string
	Refused func(error, land.Lead, worktree.Record) error
}

func (l *Live) findLead(ctx context.Context) (land.Lead, error) {
	lead, err := land.FindLead(ctx, l.Dir)
	if err != nil {
		return lead, fmt.Errorf("%w: start the dashboard in the working tree of the branch the work should reach", err)
	}
	return lead, nil
}

// records are the worktree records of the dashboard's team.
func (l *Live) records() []worktree.Record {
	recs, _ := l.Records.OfTeam(l.Team.Root, l.Team.Name) // a record that does not read is no teammate's
	return recs
}

// record is the worktree record of the team's teammate name.
func (l *Live) record(name string) (worktree.Record, error) {
	var found []worktree.Record
	for _, r := range l.records() {
		if r.Member == name {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 0:
		return worktree.Record{}, fmt.Errorf("%s: %w", name, land.ErrNoRecord)
	case 1:
		return found[0], nil
	}
	return worktree.Record{}, &land.AmbiguousError{Name: name, Teams: []string{l.Team.Name}}
}

// Review reads what 'paneteam review' shows for the team.
func (l *Live) Review(ctx context.Context) (Work, error) {
	lead, err := l.findLead(ctx)
	if err != nil {
		return Work{}, err
	}
	entries, err := land.Review(ctx, lead, l.records())
	return Work{Onto: lead.Branch, Entries: entries}, err
}

// Diff is the teammate's change, committed and uncommitted apart.
func (l *Live) Diff(ctx context.Context, name string) (land.Diff, error) {
	r, err := l.record(name)
	if err != nil {
		return land.Diff{}, err
	}
	return land.TeammateDiff(ctx, r, land.DiffOptions{Parse: true})
}

// Comment sends the teammate c by send's rules, as review --comment.
func (l *Live) Comment(ctx context.Context, name string, c land.Comment) error {
	r, err := l.record(name)
	if err != nil {
		return err
	}
	cfg, err := team.Load(l.Team.ConfigPath())
	if err != nil {
		return fmt.Errorf("reading team %s to send the comment: %w", l.Team.Name, err)
	}
	_, err = land.SendComments(ctx, l.Caller, l.Team, cfg, l.Lock, r, []land.Comment{c})
	return err
}

// Land lands the teammate as 'paneteam land NAME' does.
func (l *Live) Land(ctx context.Context, name string) (string, error) {
	lead, err := l.findLead(ctx)
	if err != nil {
		return "", err
	}
	r, err := l.record(name)
	if err != nil {
		return "", err
	}
	res, err := land.Land(ctx, land.Request{Lead: lead, Record: r, Records: l.Records, Mode: land.DefaultMode})
	if err != nil {
		if l.Words.Refused != nil {
			return "", l.Words.Refused(err, lead, r)
		}
		return "", err
	}
	if l.Words.Landed != nil {
		return l.Words.Landed(lead, r, res), nil
	}
	return fmt.Sprintf("landed %s on %s\nundo: %s", r.Member, lead.Branch, res.Undo), nil
}
