// Package land takes a teammate's work onto the lead's branch, and tells
// what each teammate's branch would bring (review). Whatever happens the
// lead's working tree, index, HEAD and branches are as they were, or show
// the whole land: the change is made in a scratch worktree detached at
// the lead's branch tip, and the lead's branch and working tree then
// move to it as `git merge --ff-only` moves them, only if nothing moved
// the branch meanwhile (docs/LAND.md).
package land

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// Mode is how the teammate's commits are taken.
type Mode string

const (
	// Merge makes a merge commit: the teammate's commits stay as they
	// were made (and signed), and the lead's branch then holds its
	// branch, so the worktree's fail-closed removal lets it go.
	Merge Mode = "merge"
	// Squash makes one commit of the whole change.
	Squash Mode = "squash"
	// Rebase replays the teammate's commits on the lead's branch.
	Rebase Mode = "rebase"
)

// DefaultMode is the mode when none is asked for.
const DefaultMode = Merge

// Request is one land.
type Request struct {
	Lead    Lead
	Record  worktree.Record
	Records worktree.Records
	Mode    Mode
	// Message replaces the merge or squash commit's message.
	Message string
	// IncludeUncommitted commits the teammate's uncommitted files on its
	// own branch first (under the person's git identity), instead of
	// refusing.
	IncludeUncommitted bool
	// KeepWorktree leaves the teammate's worktree and branch in place.
	KeepWorktree bool
	// Scratch is the folder the scratch worktree is made in (default:
	// the system's temporary folder).
	Scratch string
}

// Result is a land made.
type Result struct {
	Lead    Lead     `json:"-"` // as it was before
	Mode    Mode     `json:"mode"`
	Before  string   `json:"before"` // the lead's branch before
	After   string   `json:"after"`  // and after
	Tip     string   `json:"tip"`    // the teammate's branch that was landed
	Commits int      `json:"commits"`
	Files   []string `json:"files"`
	// Committed is the commit made of the teammate's uncommitted files
	// (IncludeUncommitted), "" when none.
	Committed string `json:"committed,omitempty"`
	// Nothing is true when the lead's branch held every change already.
	Nothing bool `json:"nothing"`
	// Removed says the worktree and branch went; Kept says why not.
	Removed bool  `json:"removed"`
	Kept    error `json:"-"`
	// Undo is the shell command that puts the lead's branch and the
	// teammate's branch back.
	Undo string `json:"undo"`
	// submodules says the move checked out submodules too, so the undo
	// puts them back as well.
	submodules bool
}

// Land takes req.Record's branch onto the lead's branch. A refusal is one
// of this package's typed errors and changes nothing.
func Land(ctx context.Context, req Request) (*Result, error) {
	r, l := req.Record, req.Lead
	if l.Ref == "" {
		return nil, &DetachedError{Dir: l.Dir}
	}
	if l.Ref == "refs/heads/"+r.Branch {
		return nil, &OwnBranchError{Dir: l.Dir, Branch: r.Branch, Member: r.Member}
	}
	if r.Running() {
		return nil, StillRunning(r)
	}
	if req.Mode == "" {
		req.Mode = DefaultMode
	}
	unlock, err := req.Records.LockRepo(ctx, l.Common)
	if err != nil {
		return nil, fmt.Errorf("wait for the repository's other lands and worktrees: %w", err)
	}
	defer unlock()
	sweepScratch(ctx, l.Dir)

	res := &Result{Lead: l, Mode: req.Mode}
	have := false
	if _, err := os.Lstat(r.Path); err == nil {
		have = true
		if !sameRepo(ctx, l.Common, r.Path) {
			return nil, &OtherRepoError{Lead: l.Dir, Repo: r.Repo}
		}
		if res.Committed, err = commitUncommitted(ctx, req); err != nil {
			return nil, err
		}
	}
	res.Tip, err = git(ctx, l.Dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("the teammate's branch %s is gone: %w", r.Branch, err)
	}
	// Re-read under the lock: what the person saw may be older.
	if res.Before, err = git(ctx, l.Dir, "rev-parse", "--verify", l.Ref); err != nil {
		return nil, err
	}
	if res.Before != l.Head {
		return nil, &MovedError{Branch: l.Branch, Was: l.Head, Now: res.Before}
	}
	res.After = res.Before
	if held, err := holds(ctx, l.Dir, res.Before, res.Tip); err != nil {
		return nil, err
	} else if held {
		res.Nothing = true
	} else if err := apply(ctx, req, res); err != nil {
		return nil, err
	}
	if res.After != res.Before {
		keepLanded(ctx, l, r, res.Tip)
	}
	if !req.KeepWorktree {
		res.Removed, res.Kept = letGo(ctx, req, res, have, false)
	}
	res.Undo = undo(l, res, r.Branch)
	return res, nil
}

// keepLanded keeps the teammate's landed commits reachable for the undo
// even once its branch goes (a squash or rebase leaves them on no
// branch), under refs/paneteam/landed/TEAM/NAME.
func keepLanded(ctx context.Context, l Lead, r worktree.Record, tip string) {
	git(ctx, l.Dir, "update-ref", "refs/paneteam/landed/"+r.Team+"/"+r.Member, tip) //nolint:errcheck
}

// commitUncommitted refuses a teammate's worktree with uncommitted files,
// or commits them on its branch when the person asked.
func commitUncommitted(ctx context.Context, req Request) (string, error) {
	r := req.Record
	files, err := dirtyPaths(ctx, r.Path)
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", nil
	}
	if !req.IncludeUncommitted {
		return "", &UncommittedError{Member: r.Member, Path: r.Path, Files: files}
	}
	if _, err := git(ctx, r.Path, "add", "--all"); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("%s: work left uncommitted, committed when it was landed\n", r.Member)
	if err := hooked(ctx, gitCmd{dir: r.Path, args: []string{"commit", "--quiet", "-F", "-"}, stdin: []byte(msg)}); err != nil {
		return "", err
	}
	return git(ctx, r.Path, "rev-parse", "HEAD")
}

// holds reports whether every commit of tip's change is on onto already
// (`git cherry`: a rebased copy counts), or the change as a whole (a
// squashed copy).
func holds(ctx context.Context, dir, onto, tip string) (bool, error) {
	return holdsAt(ctx, dir, onto, "", tip)
}

// holdsAt is holds for an onto whose tree is known ("": look it up).
func holdsAt(ctx context.Context, dir, onto, ontoTree, tip string) (bool, error) {
	if held, err := cherryHolds(ctx, dir, onto, tip); err != nil || held {
		return held, err
	}
	// A squash of several commits matches none of them one by one: the
	// branch is held too when merging it into onto would change nothing.
	tree, conflicts, err := mergeTree(ctx, dir, onto, tip)
	if err != nil || len(conflicts) > 0 {
		return false, err
	}
	if ontoTree == "" {
		if ontoTree, err = git(ctx, dir, "rev-parse", onto+"^{tree}"); err != nil {
			return false, err
		}
	}
	return tree == ontoTree, nil
}

// cherryHolds reports whether every commit of tip has a copy on onto
// (`git cherry`).
func cherryHolds(ctx context.Context, dir, onto, tip string) (bool, error) {
	out, err := git(ctx, dir, "cherry", onto, tip)
	if err != nil {
		return false, err
	}
	for _, l := range lines(out) {
		if strings.HasPrefix(l, "+") {
			return false, nil
		}
	}
	return true, nil
}

// apply makes the land in a scratch worktree and moves the lead to it.
func apply(ctx context.Context, req Request, res *Result) error {
	l, r := req.Lead, req.Record
	tree, conflicts, err := mergeTree(ctx, l.Dir, res.Before, res.Tip)
	if err != nil {
		return err
	}
	if len(conflicts) > 0 {
		return &ConflictError{Member: r.Member, Branch: r.Branch, Onto: l.Branch, Files: conflicts}
	}
	// Refuse a dirty file the result touches before any work is done.
	if _, err := checkDirty(ctx, l.Dir, res.Before, tree, r.Path); err != nil {
		return err
	}
	scratch, done, err := makeScratch(ctx, req, res.Before)
	if err != nil {
		return err
	}
	defer done()
	if err := make1(ctx, req, scratch, res); err != nil {
		return err
	}
	if res.After, err = git(ctx, scratch, "rev-parse", "HEAD"); err != nil {
		return err
	}
	if res.After == res.Before {
		res.Nothing = true
		return nil
	}
	if n, err := git(ctx, l.Dir, "rev-list", "--count", res.Before+".."+res.After); err == nil {
		fmt.Sscan(n, &res.Commits)
	}
	return moveLead(ctx, l, res, r.Path)
}

// checkDirty refuses a dirty file of dir's that the change from..to
// touches, and a submodule checked out there that the change moves to a
// commit it does not have (from: the teammate's worktree, "" if not
// known). It returns the change.
func checkDirty(ctx context.Context, dir, from, to, teammate string) ([]change, error) {
	cs, err := changes(ctx, dir, from, to)
	if err != nil {
		return nil, err
	}
	dirty, err := dirtyPaths(ctx, dir)
	if err != nil {
		return nil, err
	}
	if both := overlap(dirty, paths(cs)); len(both) > 0 {
		return nil, &DirtyError{Dir: dir, Files: both}
	}
	return cs, checkSubmodules(ctx, dir, teammate, checkedOutSubmodules(dir, cs))
}

// makeScratch adds a worktree detached at commit, in a folder of its
// own; done removes it. (git refuses a second worktree on a branch that
// is checked out, and the lead's must not be touched.)
func makeScratch(ctx context.Context, req Request, commit string) (string, func(), error) {
	dir, err := os.MkdirTemp(req.Scratch, scratchPrefix)
	if err != nil {
		return "", nil, fmt.Errorf("make a scratch folder for the land: %w", err)
	}
	path := filepath.Join(dir, "tree")
	done := func() {
		// Not bound to ctx: after a Ctrl-C the scratch still goes.
		bg := context.WithoutCancel(ctx)
		_, err := git(bg, req.Lead.Dir, "worktree", "remove", "--force", "--force", path)
		os.RemoveAll(dir)
		if err != nil {
			git(bg, req.Lead.Dir, "worktree", "prune") //nolint:errcheck
		}
	}
	if _, err := git(ctx, req.Lead.Dir, "worktree", "add", "--quiet", "--detach", path, commit); err != nil {
		done()
		return "", nil, fmt.Errorf("make the scratch worktree for the land: %w", err)
	}
	return path, done, nil
}

const scratchPrefix = "paneteam-land-"

// sweepScratch removes the scratch worktrees an interrupted land left
// (the repository's lock is held: no other land is using one), and
// returns the other worktrees git lists.
func sweepScratch(ctx context.Context, dir string) []string {
	out, err := git(ctx, dir, "worktree", "list", "--porcelain")
	if err != nil {
		return nil
	}
	var listed []string
	for _, l := range lines(out) {
		p, ok := strings.CutPrefix(l, "worktree ")
		if !ok {
			continue
		}
		if filepath.Base(p) == "tree" && strings.HasPrefix(filepath.Base(filepath.Dir(p)), scratchPrefix) {
			git(ctx, dir, "worktree", "remove", "--force", "--force", p) //nolint:errcheck
			os.RemoveAll(filepath.Dir(p))
			continue
		}
		listed = append(listed, p)
	}
	return listed
}

// make1 makes the land's commits in the scratch worktree.
func make1(ctx context.Context, req Request, scratch string, res *Result) error {
	r := req.Record
	switch req.Mode {
	case Merge:
		msg := req.Message
		if msg == "" {
			msg = fmt.Sprintf("Merge branch '%s'\n\nThe work of teammate %s of team %s.", r.Branch, r.Member, r.Team)
		}
		return conflictOr(ctx, scratch, req, hooked(ctx, gitCmd{dir: scratch, args: []string{"merge", "--quiet", "--no-ff", "--no-edit", "-m", msg, res.Tip}}))
	case Squash:
		if err := conflictOr(ctx, scratch, req, hooked(ctx, gitCmd{dir: scratch, args: []string{"merge", "--quiet", "--squash", res.Tip}})); err != nil {
			return err
		}
		msg := req.Message
		if msg == "" {
			var err error
			if msg, err = squashMessage(ctx, scratch, res.Before, res.Tip, r); err != nil {
				return err
			}
		}
		return hooked(ctx, gitCmd{dir: scratch, args: []string{"commit", "--quiet", "-F", "-"}, stdin: []byte(msg)})
	case Rebase:
		return conflictOr(ctx, scratch, req, hooked(ctx, gitCmd{dir: scratch, args: []string{"rebase", "--quiet", res.Before, res.Tip}}))
	}
	return fmt.Errorf("unknown land mode %q (merge, squash or rebase)", req.Mode)
}

// conflictOr turns a failure that left conflicted files in the scratch
// worktree into a *ConflictError.
func conflictOr(ctx context.Context, scratch string, req Request, err error) error {
	if err == nil {
		return nil
	}
	var he *HookError
	if errors.As(err, &he) {
		return err
	}
	if out, derr := git(ctx, scratch, "diff", "--name-only", "--diff-filter=U"); derr == nil && out != "" {
		return &ConflictError{Member: req.Record.Member, Branch: req.Record.Branch, Onto: req.Lead.Branch, Files: lines(out)}
	}
	return err
}

// squashMessage is the teammate's commits' messages, oldest first.
func squashMessage(ctx context.Context, dir, before, tip string, r worktree.Record) (string, error) {
	out, err := git(ctx, dir, "log", "--reverse", "--format=%s%x00%b%x01", before+".."+tip)
	if err != nil {
		return "", err
	}
	var subjects, bodies []string
	for _, c := range strings.Split(out, "\x01") {
		subj, body, _ := strings.Cut(strings.TrimSpace(c), "\x00")
		if subj == "" {
			continue
		}
		subjects = append(subjects, subj)
		bodies = append(bodies, "* "+subj+indent(strings.TrimSpace(body)))
	}
	if len(subjects) == 1 {
		return subjects[0] + "\n\n" + strings.TrimSpace(strings.TrimPrefix(bodies[0], "* "+subjects[0])) + "\n\nThe work of teammate " + r.Member + " of team " + r.Team + ", squashed.\n", nil
	}
	return fmt.Sprintf("The work of teammate %s of team %s (%d commits, squashed)\n\n%s\n", r.Member, r.Team, len(subjects), strings.Join(bodies, "\n")), nil
}

func indent(body string) string {
	if body == "" {
		return ""
	}
	return "\n\n  " + strings.ReplaceAll(body, "\n", "\n  ") + "\n"
}

// moveLead moves the lead's branch and working tree from res.Before to
// res.After as `git merge --ff-only` does (uncommitted changes elsewhere
// kept), once it has checked again that nothing moved the branch, and
// sets res.Files. teammate is the worktree the land came from, "" for
// the queue's several.
//
// git merge moves a submodule's pointer but not its checkout, even with
// submodule.recurse (git 2.39): the lead's tree would show the land's
// pointer and the old submodule, half of it. A land that moves a
// submodule checked out there is moved by moveWithSubmodules instead.
func moveLead(ctx context.Context, l Lead, res *Result, teammate string) error {
	// The branch's commit and the branch HEAD is on, in one git.
	out, _ := git(ctx, l.Dir, "rev-parse", l.Ref+"^{commit}", "--symbolic-full-name", "HEAD")
	now, ref := "", ""
	if f := lines(out); len(f) == 2 {
		now, ref = f[0], f[1]
	}
	if ref != l.Ref || now != res.Before {
		return &MovedError{Branch: l.Branch, Was: res.Before, Now: now}
	}
	cs, err := checkDirty(ctx, l.Dir, res.Before, res.After, teammate)
	if err != nil {
		return err
	}
	res.Files = paths(cs)
	if len(checkedOutSubmodules(l.Dir, cs)) > 0 {
		res.submodules = true
		return moveWithSubmodules(ctx, l, res)
	}
	// Out of ctx and of the terminal's process group: once started, the
	// move finishes, so the lead never shows half of it.
	args := []string{"merge", "--ff-only", "--quiet", res.After}
	if _, err := (gitCmd{dir: l.Dir, args: args, detach: true}).run(ctx); err != nil {
		return fmt.Errorf("your branch %s was not moved: %w", l.Branch, err)
	}
	return nil
}

// moveWithSubmodules moves the lead's branch from res.Before to
// res.After, then its index, files and submodules' checkouts by the
// two-way merge `git read-tree -m -u --recurse-submodules` (git
// read-tree, "Two Tree Merge"): what the person staged on a path the
// land does not change stays staged as it was, a cherry-pick or revert
// under way stays under way, and a path the land changes that the
// person changed makes it change nothing. (`git reset --keep` would
// reset the index of every path.) update-ref moves the branch only if
// it is still at res.Before, so a commit made since is never dropped;
// when the tree cannot follow, the branch goes back.
func moveWithSubmodules(ctx context.Context, l Lead, res *Result) error {
	move := gitCmd{dir: l.Dir, detach: true, args: []string{"update-ref", "-m", "paneteam land: fast-forward", l.Ref, res.After, res.Before}}
	if _, err := move.run(ctx); err != nil {
		return fmt.Errorf("your branch %s was not moved: %w", l.Branch, err)
	}
	tree := gitCmd{dir: l.Dir, detach: true, args: []string{"read-tree", "-m", "-u", "--recurse-submodules", res.Before, res.After}}
	if _, err := tree.run(ctx); err != nil {
		back := gitCmd{dir: l.Dir, detach: true, args: []string{"update-ref", "-m", "paneteam land: moved back", l.Ref, res.Before, res.After}}
		back.run(ctx) //nolint:errcheck // the error below says the branch was not moved
		return fmt.Errorf("your branch %s was not moved: %w", l.Branch, err)
	}
	return nil
}

// undo is the command that puts the lead's branch back where it was and
// the teammate's branch back at the commit that was landed.
func undo(l Lead, res *Result, branch string) string {
	var steps []string
	if res.After != res.Before {
		steps = append(steps, undoMove(l, res))
	}
	if res.Removed {
		steps = append(steps, fmt.Sprintf("git -C %s branch %s %s", shellQuote(l.Dir), shellQuote(branch), res.Tip))
	}
	return strings.Join(steps, " && ")
}

// undoMove is the command that puts the lead's branch back at
// res.Before, and the submodules' checkouts with it when the land moved
// them.
func undoMove(l Lead, res *Result) string {
	if res.submodules {
		return fmt.Sprintf("git -C %s reset --keep --recurse-submodules %s", shellQuote(l.Dir), res.Before)
	}
	return fmt.Sprintf("git -C %s reset --keep %s", shellQuote(l.Dir), res.Before)
}

// ShellQuote is s as one word of a POSIX shell: a branch name may hold
// a quote or a $ (git allows both).
func ShellQuote(s string) string { return shellQuote(s) }

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
