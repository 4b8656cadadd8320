package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/paneteam/paneteam/internal/sys/safefs"
)

// IncludeFile names, in .gitignore syntax, the ignored files a new
// worktree should get copies of (a .env, local settings): git does not
// check them out, and a teammate usually needs them.
const IncludeFile = ".worktreeinclude"

// copyIncluded copies into dst the files of repo that git ignores and
// IncludeFile lists. git itself does the pattern matching: the files are
// those untracked files ignored both by the standard rules and by
// IncludeFile's patterns.
func copyIncluded(ctx context.Context, repo, dst string) ([]string, error) {
	inc := filepath.Join(repo, IncludeFile)
	if _, err := os.Stat(inc); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	listed, err := gitRaw(ctx, repo, "ls-files", "-z", "--others", "--ignored", "--exclude-from="+inc)
	if err != nil {
		return nil, err
	}
	ignored, err := gitRaw(ctx, repo, "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	isIgnored := map[string]bool{}
	for _, f := range nulFields(ignored) {
		isIgnored[f] = true
	}
	var copied []string
	for _, rel := range nulFields(listed) {
		// Never copy paneteam's own worktrees into each other.
		if !isIgnored[rel] || !filepath.IsLocal(rel) || under(rel, Dir) {
			continue
		}
		ok, err := copyOne(repo, dst, rel)
		if err != nil {
			return copied, err
		}
		if ok {
			copied = append(copied, rel)
		}
	}
	sort.Strings(copied)
	return copied, nil
}

func under(rel, dir string) bool {
	return rel == dir || len(rel) > len(dir) && rel[:len(dir)] == dir && rel[len(dir)] == filepath.Separator
}

// copyOne copies repo/rel to dst/rel: a regular file (keeping its
// permission bits) or a symlink (as a symlink, its target unchanged);
// anything else is skipped. It never overwrites. Both sides are walked
// from their tree's root one folder at a time without following a link
// (safefs.OpenBelow): a teammate's branch may hold a link where a folder
// named in .worktreeinclude is, and followed it would put the lead's
// ignored files (an .env with its secrets) wherever the link points; a
// link on the lead's side would copy in a file from outside its tree.
func copyOne(repo, dst, rel string) (bool, error) {
	m, err := safefs.LstatBelow(repo, rel)
	if err != nil {
		return false, refused(filepath.Join(repo, rel), err)
	}
	switch {
	case m&fs.ModeSymlink != 0:
		target, err := safefs.ReadlinkBelow(repo, rel)
		if err != nil {
			return false, refused(filepath.Join(repo, rel), err)
		}
		if err := safefs.SymlinkBelow(target, dst, rel, 0o755); err != nil {
			return false, refused(filepath.Join(repo, rel), err)
		}
		return true, nil
	case m.IsRegular():
		return true, copyFile(repo, dst, rel, m.Perm())
	}
	return false, nil
}

func copyFile(repo, dst, rel string, perm fs.FileMode) error {
	src := filepath.Join(repo, rel)
	in, err := safefs.OpenBelow(repo, rel, os.O_RDONLY, 0, 0)
	if err != nil {
		return refused(src, err)
	}
	defer in.Close()
	out, err := safefs.OpenBelow(dst, rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm, 0o755)
	if err != nil {
		return refused(src, err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, out.Name(), err)
	}
	return nil
}

// refused is why src was not copied; a link on the way says so.
func refused(src string, err error) error {
	if safefs.IsOdd(err) {
		return fmt.Errorf("copy %s refused: %w", src, err)
	}
	return fmt.Errorf("copy %s: %w", src, err)
}
