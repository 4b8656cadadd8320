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
		ok, err := copyOne(filepath.Join(repo, rel), filepath.Join(dst, rel))
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

// copyOne copies a regular file (keeping its permission bits) or a
// symlink (as a symlink); anything else is skipped. It never overwrites.
func copyOne(src, dst string) (bool, error) {
	fi, err := os.Lstat(src)
	if err != nil {
		return false, fmt.Errorf("copy %s: %w", src, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, fmt.Errorf("copy %s: %w", src, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return false, fmt.Errorf("copy %s: %w", src, err)
		}
		if err := os.Symlink(target, dst); err != nil {
			return false, fmt.Errorf("copy %s: %w", src, err)
		}
		return true, nil
	case fi.Mode().IsRegular():
		return true, copyFile(src, dst, fi.Mode().Perm())
	}
	return false, nil
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return nil
}
