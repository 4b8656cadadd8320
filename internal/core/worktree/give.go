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
	return GiveVia(ctx, recs, dir, root, team, name, pid, "")
}

// GiveVia is Give for a teammate started by via (Record.Via).
func GiveVia(ctx context.Context, recs Records, dir, root, team, name string, pid int, via string) (*Worktree, error) {
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
	start := ""
	if pid > 0 {
		start, _ = proc.StartTime(pid)
	}
	rec := Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch, Base: wt.Base,
		Root: root, Team: team, Member: name, PID: pid, PIDStart: start, Via: via}
	rerr := recs.Write(rec)
	if rerr != nil {
		// Unrecorded, nothing would ever list or remove it: an untouched
		// one goes now, and the teammate works in the lead's folder.
		if Remove(ctx, rec) == nil {
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
	if out, err := gitRaw(ctx, r.Path, "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all"); err == nil {
		st.Changed = len(nulFields(out))
	}
	return st
}

// Tidy removes r's worktree when its teammate has ended and it holds
// nothing past its base, and forgets the record of one that is gone. It
// returns the *KeptError of a worktree that stays with work, or that is
// not the worktree paneteam made (Verify).
func Tidy(ctx context.Context, recs Records, r Record) error {
	if r.Running() {
		return nil
	}
	return recs.take(ctx, r, true)
}

// Take removes r's worktree (Remove) and forgets its record, for a
// caller that knows its teammate is gone (it left the team). Like Tidy
// it holds the repository's lock and reads the record again under it: a
// later teammate of the same name may have been given the same worktree
// since r was read, and its worktree and record are not this one's to
// remove.
func (s Records) Take(ctx context.Context, r Record) error { return s.take(ctx, r, false) }

func (s Records) take(ctx context.Context, r Record, ended bool) error {
	common := r.Repo
	if c, err := CommonDir(ctx, r.Repo); err == nil {
		common = c
	}
	unlock, err := s.LockRepo(ctx, common)
	if err != nil {
		return fmt.Errorf("wait for the repository's other worktrees: %w", err)
	}
	defer unlock()
	cur, err := s.Read(r.Path)
	if err != nil || cur == nil {
		return err
	}
	if cur.PID != r.PID || cur.PIDStart != r.PIDStart || (ended && cur.Running()) {
		if ended {
			return nil
		}
		return kept(r.Path, "it was given to a later teammate of the same name meanwhile", nil)
	}
	if err := Remove(ctx, *cur); err != nil {
		return err
	}
	return s.Forget(r.Path)
}

// Sweep tidies every recorded worktree whose teammate has ended: what a
// removal cut short at a lead's exit leaves is finished here. Worktrees
// with work stay, silently; one that is not the worktree paneteam made
// (a link planted in its place: KeptError.Foreign) stays with its error.
// A worktree spawn-pane gave (Via ViaSpawnPane) is not swept: its
// teammate may be resumed there while it is a member, and it goes when
// the teammate leaves the team (kill-pane, shutdown, cleanup).
func Sweep(ctx context.Context, recs Records) (removed []Record, errs []error) {
	list, errs := recs.List()
	for _, r := range list {
		if r.Running() || r.Via == ViaSpawnPane {
			continue
		}
		_, statErr := os.Lstat(r.Path)
		err := Tidy(ctx, recs, r)
		switch {
		case err == nil && statErr == nil:
			removed = append(removed, r)
		case err != nil && (!IsKept(err) || isForeign(err)):
			errs = append(errs, err)
		}
	}
	return removed, errs
}
