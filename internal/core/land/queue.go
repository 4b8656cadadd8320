package land

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// Outcome is what the queue did with one teammate.
type Outcome string

const (
	Landed      Outcome = "landed"
	Conflict    Outcome = "conflict"
	TestsFailed Outcome = "tests failed"
	HookFailed  Outcome = "hook failed"
	StillRuns   Outcome = "still running"
	Uncommitted Outcome = "uncommitted"
	NothingNew  Outcome = "nothing to land"
	WouldLand   Outcome = "would land"
	NotMoved    Outcome = "not moved" // landed in the scratch tree, but the lead's branch could not move
)

// QueueItem is one teammate in the queue, in the order it was taken.
type QueueItem struct {
	Record  worktree.Record `json:"-"`
	Name    string          `json:"name"`
	Team    string          `json:"team"`
	Branch  string          `json:"branch"`
	Tip     string          `json:"tip"`
	Outcome Outcome         `json:"outcome"`
	// Files are the conflicting (or uncommitted) files; Output the tail
	// of the test command's output, or the failing hook's.
	Files  []string `json:"files"`
	Output string   `json:"output,omitempty"`
	// Removed says its worktree and branch went after the land; Kept
	// why not.
	Removed bool   `json:"removed"`
	Kept    string `json:"kept,omitempty"`
}

// QueueRequest is a merge queue: every teammate of Records with work
// that has ended, one at a time.
type QueueRequest struct {
	Lead    Lead
	Records []worktree.Record
	Store   worktree.Records
	Mode    Mode
	// Test is a command run by the person's shell in the scratch
	// worktree after each teammate's land; it must pass to keep it.
	Test   string
	DryRun bool
	// Scratch is the folder the scratch worktree is made in.
	Scratch string
}

// QueueResult is the queue's outcome.
type QueueResult struct {
	Items  []QueueItem `json:"items"`
	Before string      `json:"before"`
	After  string      `json:"after"`
	// Moved says the lead's branch and tree moved to After; Err why
	// not, when something landed.
	Moved bool   `json:"moved"`
	Err   error  `json:"-"`
	Undo  string `json:"undo,omitempty"`
}

// TestTail is how many lines of a failing test command's output are kept.
const TestTail = 20

// Queue lands each teammate of req with work, oldest last commit first,
// onto a scratch worktree detached at the lead's branch tip; one that
// conflicts, fails a hook or fails req.Test is skipped, not the queue.
// At the end the lead's branch and working tree move to the result as
// Land moves them, or not at all.
func Queue(ctx context.Context, req QueueRequest) (*QueueResult, error) {
	l := req.Lead
	if l.Ref == "" {
		return nil, &DetachedError{Dir: l.Dir}
	}
	if req.Mode == "" {
		req.Mode = DefaultMode
	}
	unlock, err := req.Store.LockRepo(ctx, l.Common)
	if err != nil {
		return nil, fmt.Errorf("wait for the repository's other lands and worktrees: %w", err)
	}
	defer unlock()
	var tree string
	listed := sweepScratch(ctx, l.Dir)
	res := &QueueResult{}
	// The branch's commit and its tree, which queueOne carries on from.
	out, err := git(ctx, l.Dir, "rev-parse", l.Ref+"^{commit}", l.Ref+"^{tree}")
	if f := lines(out); err == nil && len(f) == 2 {
		res.Before, tree = f[0], f[1]
	} else if err == nil {
		err = fmt.Errorf("git rev-parse %s printed %q", l.Ref, out)
	}
	if err != nil {
		return nil, err
	}
	if res.Before != l.Head {
		return nil, &MovedError{Branch: l.Branch, Was: l.Head, Now: res.Before}
	}
	res.After = res.Before
	res.Items = queueOrder(ctx, l, req.Records, listed)
	if req.DryRun {
		return res, dryRun(ctx, l, res)
	}
	scratch, done, err := makeScratch(ctx, Request{Lead: l, Scratch: req.Scratch}, res.Before)
	if err != nil {
		return nil, err
	}
	defer done()
	for i := range res.Items {
		it := &res.Items[i]
		if it.Outcome != "" {
			continue
		}
		if err := queueOne(ctx, req, scratch, res, &tree, it); err != nil {
			return res, err
		}
	}
	if res.After == res.Before {
		return res, nil
	}
	lres := &Result{Before: res.Before, After: res.After}
	if res.Err = moveLead(ctx, l, lres, ""); res.Err != nil {
		var se *SubmoduleError
		if errors.As(res.Err, &se) && se.From == "" {
			se.From = submoduleSource(ctx, res.Items, se)
		}
		res.After = res.Before
		for i := range res.Items {
			if res.Items[i].Outcome == Landed {
				res.Items[i].Outcome = NotMoved
			}
		}
		return res, nil
	}
	res.Moved = true
	var rels []release
	var landed []*QueueItem
	for i := range res.Items {
		it := &res.Items[i]
		if it.Outcome != Landed {
			continue
		}
		keepLanded(ctx, l, it.Record, it.Tip)
		_, have := os.Lstat(it.Record.Path)
		// A merge's tip is a parent of a commit the lead's branch now
		// holds: held without asking git again.
		rels = append(rels, release{Record: it.Record, Tip: it.Tip, Have: have == nil, Known: req.Mode == Merge})
		landed = append(landed, it)
	}
	// The landed worktrees go together: the repository is read once for
	// them, each worktree right before it goes.
	removed, kept := letGoAll(ctx, l, req.Store, res.After, rels)
	var restore []string
	for j, it := range landed {
		it.Removed = removed[j]
		if kept[j] != nil {
			it.Kept = kept[j].Error()
		}
		if it.Removed {
			restore = append(restore, fmt.Sprintf("git -C %s branch %s %s", shellQuote(l.Dir), shellQuote(it.Branch), it.Tip))
		}
	}
	res.Undo = strings.Join(append([]string{undoMove(l, lres)}, restore...), " && ")
	return res, nil
}

// queueOne lands one teammate in the scratch worktree at res.After
// (whose tree is *tree), and keeps it only if it made no conflict, its
// hooks and the test passed.
//
// What is on the lead's branch already is found first by `git cherry`
// (every commit has a copy there), and a squashed copy (merging would
// change nothing) by the land itself: a merge that leaves the tree as it
// was is taken back out of the scratch. A squash or a rebase cannot be
// made of nothing, so for those the in-memory merge tells it first.
func queueOne(ctx context.Context, req QueueRequest, scratch string, res *QueueResult, tree *string, it *QueueItem) error {
	var held bool
	var err error
	if req.Mode == Merge {
		held, err = cherryHolds(ctx, req.Lead.Dir, res.After, it.Tip)
	} else {
		held, err = holdsAt(ctx, req.Lead.Dir, res.After, *tree, it.Tip)
	}
	if err != nil {
		return err
	}
	if held {
		it.Outcome = NothingNew
		return nil
	}
	one := Request{Lead: req.Lead, Record: it.Record, Mode: req.Mode}
	err = make1(ctx, one, scratch, &Result{Before: res.After, Tip: it.Tip})
	var ce *ConflictError
	var he *HookError
	switch {
	case errors.As(err, &ce):
		it.Outcome, it.Files = Conflict, ce.Files
	case errors.As(err, &he):
		it.Outcome, it.Output = HookFailed, he.Hook+": "+strings.TrimSpace(he.Output)
	case err != nil:
		return err
	}
	if it.Outcome != "" {
		return resetScratch(ctx, scratch, res.After)
	}
	out, err := git(ctx, scratch, "rev-parse", "HEAD", "HEAD^{tree}")
	if err != nil {
		return err
	}
	f := lines(out)
	if len(f) != 2 {
		return fmt.Errorf("git rev-parse HEAD in the scratch worktree printed %q", out)
	}
	if f[1] == *tree {
		it.Outcome = NothingNew
		return resetScratch(ctx, scratch, res.After)
	}
	if req.Test != "" {
		if out, ok := runTest(ctx, scratch, req.Test); !ok {
			it.Outcome, it.Output = TestsFailed, out
			return resetScratch(ctx, scratch, res.After)
		}
	}
	it.Outcome, res.After, *tree = Landed, f[0], f[1]
	return nil
}

// resetScratch puts the scratch worktree back at commit after a teammate
// is skipped (the scratch is the queue's own, never the lead's).
func resetScratch(ctx context.Context, scratch, commit string) error {
	git(ctx, scratch, "rebase", "--abort") //nolint:errcheck
	git(ctx, scratch, "merge", "--abort")  //nolint:errcheck
	if _, err := git(ctx, scratch, "checkout", "-q", "--force", "--detach", commit); err != nil {
		return err
	}
	_, err := git(ctx, scratch, "clean", "-q", "-f", "-d")
	return err
}

// runTest runs the person's test command with their shell in dir, and
// returns the tail of its output when it fails.
func runTest(ctx context.Context, dir, command string) (string, bool) {
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "sh"
	}
	cmd := exec.CommandContext(ctx, shell, "-c", command)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		ls := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if len(ls) > TestTail {
			ls = ls[len(ls)-TestTail:]
		}
		return fmt.Sprintf("%s (%v)\n%s", command, err, strings.Join(ls, "\n")), false
	}
	return "", true
}

// dryRun says what the queue would do, merging in memory: each result
// is a commit object made from merge-tree's tree (git commit-tree), on
// no branch, so no working tree, index or ref changes. Hooks and the
// test command do not run.
func dryRun(ctx context.Context, l Lead, res *QueueResult) error {
	cur := res.Before
	for i := range res.Items {
		it := &res.Items[i]
		if it.Outcome != "" {
			continue
		}
		if held, err := holds(ctx, l.Dir, cur, it.Tip); err != nil {
			return err
		} else if held {
			it.Outcome = NothingNew
			continue
		}
		tree, files, err := mergeTree(ctx, l.Dir, cur, it.Tip)
		if err != nil {
			return err
		}
		if len(files) > 0 {
			it.Outcome, it.Files = Conflict, files
			continue
		}
		next, err := git(ctx, l.Dir, "commit-tree", "--no-gpg-sign", tree, "-p", cur, "-p", it.Tip, "-m", "paneteam land dry run")
		if err != nil {
			return err
		}
		it.Outcome, cur = WouldLand, next
	}
	return nil
}

// submoduleSource is the checkout of se's submodule, in the worktree of
// a teammate the queue landed, that has se's commit: where the lead can
// fetch it from. "" when none has.
func submoduleSource(ctx context.Context, items []QueueItem, se *SubmoduleError) string {
	for _, it := range items {
		if it.Outcome != Landed {
			continue
		}
		dir := filepath.Join(it.Record.Path, se.Path)
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
			continue
		}
		if _, err := git(ctx, dir, "cat-file", "-e", se.Commit+"^{commit}"); err == nil {
			return dir
		}
	}
	return ""
}
