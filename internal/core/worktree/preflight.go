package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Preflight looks at the folder a lead works in before its teammates get
// worktrees there. An error says why they cannot (not a repository, a
// bare one, no commit yet, git missing): teammates then run in that
// folder as without worktrees. Notes name what is handled but worth
// knowing: an unfinished merge, rebase, cherry-pick or revert (teammates
// start from HEAD, without it) and a detached HEAD (their branches start
// at its commit).
func Preflight(ctx context.Context, dir string) (notes []string, err error) {
	inside, err := git(ctx, dir, "rev-parse", "--is-inside-work-tree")
	if errors.Is(err, ErrNoGit) {
		return nil, ErrNoGit
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not in a git repository: teammates work in it as without worktrees", dir)
	}
	if inside != "true" {
		return nil, fmt.Errorf("%s is inside a git folder or a bare repository, not a working tree: teammates work in it as without worktrees", dir)
	}
	if _, _, err := mainTree(ctx, dir); err != nil {
		return nil, fmt.Errorf("%v: teammates work in %s as without worktrees", err, dir)
	}
	head, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return nil, fmt.Errorf("the repository at %s has no commit yet: teammates work in it as without worktrees until it has one", dir)
	}
	short := head
	if len(short) > 12 {
		short = short[:12]
	}
	for _, p := range []struct{ file, what string }{
		{"MERGE_HEAD", "a merge"}, {"rebase-merge", "a rebase"}, {"rebase-apply", "a rebase or git am"},
		{"CHERRY_PICK_HEAD", "a cherry-pick"}, {"REVERT_HEAD", "a revert"},
	} {
		path, err := git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-path", p.file)
		if err != nil {
			continue
		}
		if _, err := os.Lstat(path); err == nil {
			notes = append(notes, fmt.Sprintf("%s is in progress in %s: teammates' worktrees start from HEAD (%s), without its unfinished result", p.what, dir, short))
			break
		}
	}
	if _, err := git(ctx, dir, "symbolic-ref", "-q", "HEAD"); err != nil {
		notes = append(notes, fmt.Sprintf("HEAD is detached at %s: teammates' branches start from that commit", short))
	}
	return notes, nil
}

// CommonDir is the common git folder of the repository holding dir (the
// same for all its worktrees).
func CommonDir(ctx context.Context, dir string) (string, error) {
	common, err := git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("%s is not in a git repository: %w", dir, err)
	}
	return common, nil
}
