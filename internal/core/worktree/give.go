package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
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
	rerr := recs.Write(Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch, Base: wt.Base,
		Root: root, Team: team, Member: name, PID: pid})
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
	st := Status{Record: r, Running: Alive(r.PID)}
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

// Alive reports whether the process pid is still there (a zombie is not).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && strings.HasPrefix(s[i+1:], " Z") {
			return false
		}
	}
	return true
}

// Tidy removes r's worktree when its teammate has ended and it holds
// nothing past its base, and forgets the record of one that is gone. It
// returns the *KeptError of a worktree that stays with work.
func Tidy(ctx context.Context, recs Records, r Record) error {
	if Alive(r.PID) {
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
		if Alive(r.PID) {
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
