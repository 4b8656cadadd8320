package land

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// Comment is a reviewer's note on one line of a teammate's change.
type Comment struct {
	File string
	Line int
	Text string
}

// ParseAt reads FILE:LINE.
func ParseAt(at string) (file string, line int, err error) {
	i := strings.LastIndex(at, ":")
	if i <= 0 {
		return "", 0, fmt.Errorf("%q is not FILE:LINE", at)
	}
	n, err := strconv.Atoi(at[i+1:])
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("%q is not FILE:LINE (a line number from 1)", at)
	}
	return at[:i], n, nil
}

// CommentContext is how many lines each side of a commented line are
// quoted.
const CommentContext = 2

// CommentMessage is the one message that carries every comment to the
// teammate: each commented line quoted, with a little context, from its
// worktree as it is (its branch when the worktree has gone), so its
// model reads the file, the line and the code it is about.
func CommentMessage(ctx context.Context, r worktree.Record, comments []Comment) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Review of your work on %s: %d comment(s). Please address each in your worktree, commit, and report back.\n", r.Branch, len(comments))
	for _, c := range comments {
		text, err := readAt(ctx, r, c.File)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n%s:%d: %s\n", c.File, c.Line, c.Text)
		all := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if c.Line > len(all) {
			return "", fmt.Errorf("%s has %d lines, so it has no line %d", c.File, len(all), c.Line)
		}
		for n := max(1, c.Line-CommentContext); n <= min(len(all), c.Line+CommentContext); n++ {
			mark := " "
			if n == c.Line {
				mark = ">"
			}
			fmt.Fprintf(&b, "  %s %4d | %s\n", mark, n, all[n-1])
		}
	}
	return b.String(), nil
}

// readAt is file in r's worktree, or at its branch's tip when the
// worktree has gone. Only a regular file below the worktree is read.
func readAt(ctx context.Context, r worktree.Record, file string) (string, error) {
	rel := filepath.Clean(file)
	if filepath.IsAbs(file) {
		var err error
		if rel, err = filepath.Rel(r.Path, file); err != nil {
			return "", err
		}
	}
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is not a file of %s's worktree", file, r.Member)
	}
	p := filepath.Join(r.Path, rel)
	if fi, err := os.Lstat(p); err == nil {
		if !fi.Mode().IsRegular() || fi.Size() > 8<<20 {
			return "", fmt.Errorf("%s is not a regular text file of %s's worktree", file, r.Member)
		}
		b, err := os.ReadFile(p)
		return string(b), err
	} else if _, werr := os.Lstat(r.Path); werr == nil {
		return "", fmt.Errorf("%s is not in %s's worktree: %w", file, r.Member, err)
	}
	out, err := gitCmd{dir: r.Repo, args: []string{"show", "refs/heads/" + r.Branch + ":" + filepath.ToSlash(rel)}}.run(ctx)
	if err != nil {
		return "", fmt.Errorf("%s is not on %s's branch %s: %w", file, r.Member, r.Branch, err)
	}
	return out, nil
}
