package land

import (
	"fmt"
	"strings"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// The refusals of a land. Each is returned before anything of the
// lead's has moved; a front end words the next step in its own terms.

// DetachedError is a lead whose HEAD is on no branch: there is no
// branch to land on.
type DetachedError struct{ Dir string }

func (e *DetachedError) Error() string {
	return fmt.Sprintf("the working tree %s is on a detached HEAD: check out the branch to land on first", e.Dir)
}

// OtherRepoError is a teammate's worktree of another repository than
// the lead's working tree.
type OtherRepoError struct{ Lead, Repo string }

func (e *OtherRepoError) Error() string {
	return fmt.Sprintf("the teammate's worktree belongs to the repository %s, not to %s, where you are", e.Repo, e.Lead)
}

// RunningError is a teammate still running: it may still be writing.
type RunningError struct {
	Team, Member string
	PID          int
	// ClaudeLead: Claude Code's lead started it ('paneteam claude
	// --worktree'), so only that lead can stop it; Claude Code refuses a
	// shutdown request anyone else writes.
	ClaudeLead bool
}

// StillRunning is the refusal of r while it runs.
func StillRunning(r worktree.Record) *RunningError {
	return &RunningError{Team: r.Team, Member: r.Member, PID: r.PID, ClaudeLead: r.Via != worktree.ViaSpawnPane}
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("%s of team %s is still running (pid %d) and may still be writing", e.Member, e.Team, e.PID)
}

// UncommittedError is a teammate's worktree with files not committed.
type UncommittedError struct {
	Member, Path string
	Files        []string
}

func (e *UncommittedError) Error() string {
	return fmt.Sprintf("%s has %d uncommitted file(s) in %s (%s)", e.Member, len(e.Files), e.Path, summarize(e.Files))
}

// DirtyError is a lead whose working tree has changes in files the land
// would touch.
type DirtyError struct {
	Dir   string
	Files []string
}

func (e *DirtyError) Error() string {
	return fmt.Sprintf("your working tree %s has uncommitted changes in %d file(s) the land would change (%s)", e.Dir, len(e.Files), summarize(e.Files))
}

// ConflictError is a change that does not land cleanly on the lead's
// branch as it is now.
type ConflictError struct {
	Member, Branch string
	Onto           string // the lead's branch
	Files          []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s's branch %s conflicts with %s in %d file(s): %s", e.Member, e.Branch, e.Onto, len(e.Files), FileList(e.Files, ListedFiles))
}

// OwnBranchError is a lead whose working tree is on the teammate's own
// branch: landing it there would land it on itself, and letting the
// branch go would take the branch the lead is on.
type OwnBranchError struct{ Dir, Branch, Member string }

func (e *OwnBranchError) Error() string {
	return fmt.Sprintf("your working tree %s is on %s's own branch %s: there is nothing to land it onto", e.Dir, e.Member, e.Branch)
}

// SubmoduleError is a land that moves a submodule checked out in the
// lead's working tree to a commit that submodule's repository does not
// have: git could not check it out, and the lead's branch would point
// at a submodule commit its tree does not show. Nothing moved.
type SubmoduleError struct {
	Dir    string // the lead's working tree
	Path   string // the submodule, relative to Dir
	Commit string
	// From is a repository that has the commit (the teammate's checkout
	// of the submodule), "" when not known.
	From string
}

func (e *SubmoduleError) Error() string {
	return fmt.Sprintf("the land moves the submodule %s to %s, which its checkout in %s does not have, so it could not be checked out with it", e.Path, short(e.Commit), e.Dir)
}

// ListedFiles is how many file names a refusal or a table names before
// it says how many more there are: a change of thousands of files stays
// readable, and git lists them all.
const ListedFiles = 10

// FileList names up to n of files, then how many more there are.
func FileList(files []string, n int) string {
	if len(files) <= n {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:n], ", "), len(files)-n)
}

// HookError is a git hook of the person's that failed and stopped the
// land.
type HookError struct {
	Hook   string // its name: pre-commit, commit-msg, pre-merge-commit...
	Output string // what git and the hook wrote
}

func (e *HookError) Error() string {
	return fmt.Sprintf("your git hook %s failed, so nothing was landed: %s", e.Hook, strings.TrimSpace(e.Output))
}

// MovedError is a lead's branch (or HEAD) that something else moved
// while the land was being made: nothing of the lead's moves.
type MovedError struct {
	Branch   string
	Was, Now string
}

func (e *MovedError) Error() string {
	return fmt.Sprintf("%s moved while the land was being made (from %s to %s), so it was left where it is now", e.Branch, short(e.Was), short(e.Now))
}

func summarize(files []string) string {
	if len(files) <= 3 {
		return strings.Join(files, ", ")
	}
	return strings.Join(files[:3], ", ") + ", ..."
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
