package teamwatch

import (
	"context"
	"sort"

	"github.com/paneteam/paneteam/internal/core/land"
	"github.com/paneteam/paneteam/internal/core/worktree"
)

// BranchWork is a member's worktree as 'paneteam review' sees it: the
// counts and the conflicts of land.Review, against the lead's branch as
// it is now.
type BranchWork struct {
	// Onto is the lead's branch it was merged against ("HEAD" when that
	// working tree is on a detached HEAD).
	Onto string `json:"onto"`
	// Ahead is its commits past its base; Uncommitted its files not
	// committed. -1 when git could not tell.
	Ahead       int `json:"ahead"`
	Uncommitted int `json:"uncommitted"`
	Added       int `json:"added"`
	Removed     int `json:"removed"`
	// Clean is true when it lands on Onto without conflict;
	// LeadConflicts are the files that conflict there.
	Clean         bool     `json:"clean"`
	LeadConflicts []string `json:"leadConflicts"`
	// ConflictsWith are the other members whose branches conflict with
	// this one; ConflictFiles every file in conflict.
	ConflictsWith []string `json:"conflictsWith"`
	ConflictFiles []string `json:"conflictFiles"`
}

// branchWork reviews the worktrees of recs (branches) by land.Review,
// the one rule for what a teammate's work is and whether it lands: each
// repository's records against the working tree leadDir when it is of
// that repository, else against the repository's main working tree. A
// member with nothing to land, or whose repository git cannot read, has
// none.
func branchWork(ctx context.Context, leadDir string, recs map[string]worktree.Record) map[string]*BranchWork {
	if len(recs) == 0 {
		return nil
	}
	var here *land.Lead
	if leadDir != "" {
		if l, err := land.FindLead(ctx, leadDir); err == nil {
			here = &l
		}
	}
	// Grouped by repository, in name order so conflictsWith is too.
	names := make([]string, 0, len(recs))
	for n := range recs {
		names = append(names, n)
	}
	sort.Strings(names)
	groups := map[string][]worktree.Record{}
	var repos []string
	for _, n := range names {
		r := recs[n]
		if _, ok := groups[r.Repo]; !ok {
			repos = append(repos, r.Repo)
		}
		groups[r.Repo] = append(groups[r.Repo], r)
	}
	out := map[string]*BranchWork{}
	for _, repo := range repos {
		l, ok := leadFor(ctx, here, repo)
		if !ok {
			continue
		}
		// Review leaves out records of another repository itself.
		entries, err := land.Review(ctx, l, groups[repo])
		if err != nil {
			continue
		}
		onto := l.Branch
		if onto == "" {
			onto = "HEAD"
		}
		for _, e := range entries {
			out[e.Name] = &BranchWork{Onto: onto, Ahead: e.Ahead, Uncommitted: e.Uncommitted, Added: e.Added, Removed: e.Removed,
				Clean: e.Clean, LeadConflicts: e.LeadConflicts, ConflictsWith: e.ConflictsWith, ConflictFiles: e.ConflictFiles}
		}
	}
	return out
}

// leadFor is the working tree a repository's worktrees are reviewed
// against: here when it is of repo ("" for a member row with no record:
// here, Review checking the repository), else repo's main working tree.
func leadFor(ctx context.Context, here *land.Lead, repo string) (land.Lead, bool) {
	if here != nil {
		if repo == "" {
			return *here, true
		}
		if common, err := worktree.CommonDir(ctx, repo); err == nil && samePath(common, here.Common) {
			return *here, true
		}
	}
	if repo == "" {
		return land.Lead{}, false
	}
	l, err := land.FindLead(ctx, repo)
	return l, err == nil
}
