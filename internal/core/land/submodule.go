package land

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// change is one path a land changes (`git diff --raw`): a submodule's
// pointer (a gitlink, mode 160000) is told apart, with the commit it
// moves to.
type change struct {
	path    string
	gitlink bool   // the new side is a submodule commit
	to      string // the new side's object
}

// changes are the paths that differ between two trees or commits.
func changes(ctx context.Context, dir, from, to string) ([]change, error) {
	out, err := gitCmd{dir: dir, args: []string{"diff", "--raw", "-z", "--no-renames", "--no-abbrev", from, to}}.run(ctx)
	if err != nil {
		return nil, err
	}
	// ":<old mode> <new mode> <old> <new> <status>" NUL <path> NUL
	var cs []change
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i++ {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if !strings.HasPrefix(fields[i], ":") || len(meta) < 5 {
			continue
		}
		i++
		cs = append(cs, change{path: fields[i], gitlink: meta[1] == "160000", to: meta[3]})
	}
	return cs, nil
}

func paths(cs []change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.path
	}
	return out
}

// checkedOutSubmodules are the changes that move a submodule checked out
// in the working tree dir (its folder has a .git of its own): git merge
// would move the pointer and leave the checkout where it was, half the
// land.
func checkedOutSubmodules(dir string, cs []change) []change {
	var out []change
	for _, c := range cs {
		if !c.gitlink {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, c.path, ".git")); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// checkSubmodules refuses, before anything moves, a land that moves a
// submodule checked out in the lead's tree to a commit its checkout does
// not have. from is the teammate's worktree ("" when not known), whose
// checkout of the submodule may have it.
func checkSubmodules(ctx context.Context, dir, from string, subs []change) error {
	for _, c := range subs {
		if _, err := git(ctx, filepath.Join(dir, c.path), "cat-file", "-e", c.to+"^{commit}"); err != nil {
			e := &SubmoduleError{Dir: dir, Path: c.path, Commit: c.to}
			if from != "" {
				if _, err := os.Lstat(filepath.Join(from, c.path, ".git")); err == nil {
					e.From = filepath.Join(from, c.path)
				}
			}
			return e
		}
	}
	return nil
}
