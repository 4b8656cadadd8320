package land

import (
	"context"
	"os"
	"strings"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// DiffOptions is what part of a teammate's change to show, and how.
type DiffOptions struct {
	Stat  bool     // a diffstat instead of the patch
	Paths []string // only these paths (git pathspecs)
	// Color asks git for colour (ShowSettings says whether the person
	// wants it).
	Color bool
	// Parse asks for a plain unified diff a program reads (DiffLines):
	// no colour, external diff or textconv, and a/ b/ prefixes whatever
	// diff.noprefix or diff.mnemonicPrefix the person set.
	Parse bool
}

// Diff is a teammate's change, committed work and uncommitted work
// apart, as git diff shows them with the person's own settings (their
// diff driver, word-diff, renames...).
type Diff struct {
	Name        string   `json:"name"`
	Branch      string   `json:"branch"`
	Base        string   `json:"base"`
	Tip         string   `json:"tip"`
	Committed   string   `json:"committed"`   // base to its last commit
	Uncommitted string   `json:"uncommitted"` // its last commit to its files
	Untracked   []string `json:"untracked"`   // new files not yet added
}

// TeammateDiff is r's change.
func TeammateDiff(ctx context.Context, r worktree.Record, o DiffOptions) (Diff, error) {
	d := Diff{Name: r.Member, Branch: r.Branch, Base: r.Base, Untracked: []string{}}
	dir := r.Path
	_, statErr := os.Lstat(r.Path)
	if statErr != nil {
		dir = r.Repo // gone: its branch stays
	}
	var err error
	if d.Tip, err = git(ctx, dir, "rev-parse", "--verify", "refs/heads/"+r.Branch+"^{commit}"); err != nil {
		return d, err
	}
	base := r.Base
	if base == "" {
		base = d.Tip + "^"
	}
	args := []string{"diff"}
	if o.Stat {
		args = append(args, "--stat")
	}
	if o.Color {
		args = append(args, "--color=always")
	}
	if o.Parse {
		args = append(args, parseArgs...)
	}
	withPaths := func(a ...string) []string {
		out := append(append([]string{}, args...), a...)
		return append(append(out, "--"), o.Paths...)
	}
	if d.Committed, err = (gitCmd{dir: dir, args: withPaths(base, d.Tip)}).run(ctx); err != nil {
		return d, err
	}
	if statErr != nil {
		return d, nil
	}
	if d.Uncommitted, err = (gitCmd{dir: dir, args: append([]string{noLocks}, withPaths("HEAD")...)}).run(ctx); err != nil {
		return d, err
	}
	out, err := gitCmd{dir: dir, args: append([]string{"ls-files", "--others", "--exclude-standard", "-z", "--"}, o.Paths...)}.run(ctx)
	if err == nil {
		d.Untracked = append(d.Untracked, nulFields(out)...)
	}
	return d, nil
}

// parseArgs make git diff's output DiffLines' input.
var parseArgs = []string{"--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}

// ShowSettings is whether the person's git settings want colour on this
// output (color.diff, color.ui; tty says whether it is a terminal) and
// the pager they set (core.pager, GIT_PAGER, PAGER), "" for none.
func ShowSettings(ctx context.Context, dir string, tty bool) (color bool, pager string) {
	want := "false"
	if tty {
		want = "true"
	}
	out, err := git(ctx, dir, "config", "--get-colorbool", "color.diff", want)
	color = err == nil && out == "true"
	if tty {
		if p, err := git(ctx, dir, "var", "GIT_PAGER"); err == nil && p != "cat" {
			pager = strings.TrimSpace(p)
		}
	}
	return color, pager
}

// Compare is how two teammates' branches differ (`git diff A B`): two
// attempts at one task, side by side.
func Compare(ctx context.Context, l Lead, a, b worktree.Record, o DiffOptions) (string, error) {
	args := []string{"diff"}
	if o.Stat {
		args = append(args, "--stat")
	}
	if o.Color {
		args = append(args, "--color=always")
	}
	args = append(args, "refs/heads/"+a.Branch, "refs/heads/"+b.Branch, "--")
	return gitCmd{dir: l.Dir, args: append(args, o.Paths...)}.run(ctx)
}
