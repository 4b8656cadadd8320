package land

import (
	"context"
	"fmt"
	"slices"
)

// mergeTree merges theirs into ours in memory (`git merge-tree
// --write-tree`, git 2.38 and later): no working tree or index is
// touched. It returns the result's tree and the conflicted paths.
func mergeTree(ctx context.Context, dir, ours, theirs string) (tree string, conflicts []string, err error) {
	out, err := gitCmd{dir: dir, args: []string{"merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs}}.run(ctx)
	// Exit code 1 is a merge with conflicts; anything else is a failure.
	if err != nil && exitCode(err) != 1 {
		return "", nil, fmt.Errorf("merge %s into %s in memory (git 2.38 or later is needed): %w", short(theirs), short(ours), err)
	}
	fields := nulFields(out)
	if len(fields) == 0 {
		return "", nil, fmt.Errorf("git merge-tree printed no tree for %s and %s", short(ours), short(theirs))
	}
	for _, f := range fields[1:] {
		if !slices.Contains(conflicts, f) {
			conflicts = append(conflicts, f)
		}
	}
	if err != nil && len(conflicts) == 0 {
		return "", nil, fmt.Errorf("merge %s into %s in memory: %w", short(theirs), short(ours), err)
	}
	return fields[0], conflicts, nil
}
