package land

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

// Entry is one teammate's work as review shows it: worked out from its
// branch and worktree, and merged in memory against the lead's branch and
// every other teammate's, touching no working tree or index.
type Entry struct {
	Record worktree.Record `json:"-"`
	Name   string          `json:"name"`
	Team   string          `json:"team"`
	Branch string          `json:"branch"`
	Base   string          `json:"base"`
	Tip    string          `json:"tip"`
	Path   string          `json:"path"`
	// Ahead is its commits past its base; Uncommitted its files not
	// committed (untracked ones too). -1 when git could not tell.
	Ahead       int `json:"ahead"`
	Uncommitted int `json:"uncommitted"`
	// Added and Removed are the lines its change adds and removes,
	// committed and uncommitted (text files).
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Binary is its binary files changed, committed and uncommitted,
	// which count no lines (git diff --numstat shows them as "-").
	Binary int `json:"binary"`
	// Clean is true when its branch lands on the lead's as it is now
	// without conflict; LeadConflicts are the files that conflict there.
	Clean         bool     `json:"clean"`
	LeadConflicts []string `json:"leadConflicts"`
	// ConflictsWith are the other teammates whose branches conflict with
	// this one; ConflictFiles every file in conflict, with the lead's
	// branch or theirs.
	ConflictsWith []string `json:"conflictsWith"`
	ConflictFiles []string `json:"conflictFiles"`
	Running       bool     `json:"running"`
	// Gone is true when its worktree's folder went and its branch stays.
	Gone bool `json:"gone"`
}

// Work reports whether there is anything to review or land.
func (e Entry) Work() bool { return e.Ahead != 0 || e.Uncommitted > 0 }

// Review describes the teammates of recs with work in the lead's
// repository, in recs' order; records of other repositories and of
// teammates whose branch is gone are left out.
func Review(ctx context.Context, l Lead, recs []worktree.Record) ([]Entry, error) {
	var out []Entry
	for _, r := range recs {
		e, ok := describe(ctx, l, r)
		if ok && e.Work() {
			out = append(out, e)
		}
	}
	for i := range out {
		if out[i].Ahead == 0 {
			out[i].Clean = true
			continue
		}
		_, files, err := mergeTree(ctx, l.Dir, l.Head, out[i].Tip)
		if err != nil {
			return nil, err
		}
		out[i].Clean, out[i].LeadConflicts = len(files) == 0, nonNil(files)
		out[i].ConflictFiles = addAll(out[i].ConflictFiles, files)
		for j := i + 1; j < len(out); j++ {
			if out[j].Ahead == 0 {
				continue
			}
			_, both, err := mergeTree(ctx, l.Dir, out[i].Tip, out[j].Tip)
			if err != nil {
				return nil, err
			}
			if len(both) > 0 {
				out[i].ConflictsWith = append(out[i].ConflictsWith, out[j].Name)
				out[j].ConflictsWith = append(out[j].ConflictsWith, out[i].Name)
				out[i].ConflictFiles = addAll(out[i].ConflictFiles, both)
				out[j].ConflictFiles = addAll(out[j].ConflictFiles, both)
			}
		}
	}
	for i := range out {
		out[i].ConflictsWith, out[i].ConflictFiles = nonNil(out[i].ConflictsWith), nonNil(out[i].ConflictFiles)
		slices.Sort(out[i].ConflictFiles)
	}
	return out, nil
}

func describe(ctx context.Context, l Lead, r worktree.Record) (Entry, bool) {
	e := Entry{Record: r, Name: r.Member, Team: r.Team, Branch: r.Branch, Base: r.Base, Path: r.Path, Running: r.Running(), Ahead: -1, Uncommitted: -1}
	tip, err := git(ctx, l.Dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+r.Branch+"^{commit}")
	if err != nil {
		return e, false
	}
	e.Tip = tip
	_, statErr := os.Lstat(r.Path)
	e.Gone = statErr != nil
	if !e.Gone && !sameRepo(ctx, l.Common, r.Path) {
		return e, false
	}
	if e.Gone && !samePath(r.Repo, l.Dir) && !sameRepo(ctx, l.Common, r.Repo) {
		return e, false
	}
	base := r.Base
	if base == "" {
		base, _ = git(ctx, l.Dir, "merge-base", l.Head, tip)
	}
	if n, err := git(ctx, l.Dir, "rev-list", "--count", base+".."+tip); err == nil {
		e.Ahead, _ = strconv.Atoi(n)
	}
	numstat := []string{"diff", "--numstat", base, tip}
	if !e.Gone {
		if files, err := dirtyPaths(ctx, r.Path); err == nil {
			e.Uncommitted = len(files)
		}
		numstat = []string{noLocks, "diff", "--numstat", base} // the working tree: committed and not
	} else {
		e.Uncommitted = 0
	}
	dir := l.Dir
	if !e.Gone {
		dir = r.Path
	}
	if out, err := git(ctx, dir, numstat...); err == nil {
		for _, line := range lines(out) {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "-" && f[1] == "-" {
				e.Binary++
			} else if len(f) >= 2 {
				a, _ := strconv.Atoi(f[0])
				d, _ := strconv.Atoi(f[1])
				e.Added, e.Removed = e.Added+a, e.Removed+d
			}
		}
	}
	if !e.Gone {
		n, bin := untrackedLines(ctx, r.Path)
		e.Added, e.Binary = e.Added+n, e.Binary+bin
	}
	return e, true
}

// untrackedLines counts the lines of the untracked files in the worktree
// dir, which git diff leaves out: new files are most of a teammate's
// uncommitted work. A binary file counts none, and is counted apart;
// one past a megabyte is not read.
func untrackedLines(ctx context.Context, dir string) (n, binary int) {
	out, err := gitCmd{dir: dir, args: []string{"ls-files", "--others", "--exclude-standard", "-z"}}.run(ctx)
	if err != nil {
		return 0, 0
	}
	for _, f := range nulFields(out) {
		// Regular files only: a link or a pipe a teammate left is not
		// followed or waited on.
		p := filepath.Join(dir, f)
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// git's own test: a NUL in the first 8000 bytes (xdiff's
		// buffer_is_binary).
		if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
			binary++
			continue
		}
		n += bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
	}
	return n, binary
}

func addAll(to, from []string) []string {
	for _, f := range from {
		if !slices.Contains(to, f) {
			to = append(to, f)
		}
	}
	return to
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
