package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/paneteam/paneteam/internal/sys/proc"
)

// Give makes the worktree of member name of team in the repository
// holding dir, one add at a time per repository, and records it in recs
// with the teammate's process pid. It is Create for a teammate whose
// worktree paneteam tracks until it is removed.
func Give(ctx context.Context, recs Records, dir, root, team, name string, pid int) (*Worktree, error) {
	common, err := CommonDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	unlock, err := recs.LockRepo(ctx, common)
	if err != nil {
		return nil, fmt.Errorf("wait for the repository's other worktrees: %w", err)
	}
	defer unlock()
	wt, err := Create(ctx, dir, team, name)
	if wt == nil {
		return nil, err
	}
	start, _ := proc.StartTime(pid)
	rerr := recs.Write(Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch, Base: wt.Base,
		Root: root, Team: team, Member: name, PID: pid, PIDStart: start})
	if rerr != nil {
		// Unrecorded, nothing would ever list or remove it: an untouched
		// one goes now, and the teammate works in the lead's folder.
		if RemoveSince(ctx, wt.Path, wt.Base) == nil {
			return nil, fmt.Errorf("the worktree's record could not be written, so it was not kept: %w", rerr)
		}
	}
	return wt, errors.Join(err, rerr)
}

// Status is what a worktree holds beyond where it started.
type Status struct {
	Record
	Ahead   int  `json:"ahead"`   // commits on its branch past its base
	Changed int  `json:"changed"` // uncommitted or untracked files
	Gone    bool `json:"gone"`    // the folder is no longer there
	// Running is true while the teammate's process is alive.
	Running bool `json:"running"`
}

// Describe tells what r's worktree holds; git failing costs only the
// numbers (-1).
func Describe(ctx context.Context, r Record) Status {
	st := Status{Record: r, Running: r.Running()}
	if _, err := os.Lstat(r.Path); err != nil {
		st.Gone = true
		return st
	}
	st.Ahead, st.Changed = -1, -1
	if r.Base != "" {
		if out, err := git(ctx, r.Path, "rev-list", "--count", r.Base+"..HEAD"); err == nil {
			st.Ahead, _ = strconv.Atoi(out)
		}
	}
	if out, err := gitRaw(ctx, r.Path, "status", "--porcelain=v1", "-z", "--untracked-files=all"); err == nil {
		st.Changed = len(nulFields(out))
	}
	return st
}

// Tidy removes r's worktree when its teammate has ended and it holds
// nothing past its base, and forgets the record of one that is gone. It
// returns the *KeptError of a worktree that stays with work.
//
// It holds the repository's lock and reads the record again under it: a
// later teammate of the same name may have been given the same worktree
// since r was read, and its worktree and record are not this one's to
// remove.
func Tidy(ctx context.Context, recs Records, r Record) error {
	if r.Running() {
		return nil
	}
	common := r.Repo
	if c, err := CommonDir(ctx, r.Repo); err == nil {
		common = c
	}
	unlock, err := recs.LockRepo(ctx, common)
	if err != nil {
		return fmt.Errorf("wait for the repository's other worktrees: %w", err)
	}
	defer unlock()
	cur, err := recs.Read(r.Path)
	if err != nil || cur == nil {
		return err
	}
	if cur.PID != r.PID || cur.PIDStart != r.PIDStart || cur.Running() {
		return nil
	}
	if err := RemoveSince(ctx, r.Path, r.Base); err != nil {
		return err
	}
	return recs.Forget(r.Path)
}

// Sweep tidies every recorded worktree whose teammate has ended: what a
// removal cut short at a lead's exit leaves is finished here. Worktrees
// with work stay, silently.
func Sweep(ctx context.Context, recs Records) (removed []Record, errs []error) {
	list, errs := recs.List()
	for _, r := range list {
		if r.Running() {
			continue
		}
		_, statErr := os.Lstat(r.Path)
		err := Tidy(ctx, recs, r)
		switch {
		case err == nil && statErr == nil:
			removed = append(removed, r)
		case err != nil && !IsKept(err):
			errs = append(errs, err)
		}
	}
	return removed, errs
}

// Drop removes r's worktree and deletes its branch whatever they hold:
// the person asked for it (paneteam worktrees --remove --force). Only a
// worktree where paneteam puts its teammates' is dropped.
func Drop(ctx context.Context, r Record) error {
	if err := Owned(r.Path, r.Team, r.Member); err != nil {
		return err
	}
	if !samePath(r.Path, Path(r.Repo, r.Team, r.Member)) || r.Branch != Branch(r.Team, r.Member) {
		return &KeptError{Path: r.Path, Reason: "its record does not match where paneteam puts it"}
	}
	if _, err := os.Lstat(r.Path); err == nil {
		if _, err := git(ctx, r.Repo, "worktree", "remove", "--force", "--force", r.Path); err != nil {
			return fmt.Errorf("remove the worktree %s: %w", r.Path, err)
		}
	}
	if _, err := git(ctx, r.Repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch); err == nil {
		if _, err := git(ctx, r.Repo, "branch", "-D", r.Branch); err != nil {
			return fmt.Errorf("worktree %s removed, but its branch %s was not deleted: %w", r.Path, r.Branch, err)
		}
	}
	pruneParents(r.Repo, r.Path)
	return nil
}
