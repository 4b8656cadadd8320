// Command review measures `paneteam review --json` for 10 teammates, each
// with 50 commits and about 2,000 changed lines, against the git commands
// it runs for the same answers, run one after another by this program,
// interleaved in one run (issue 40: at most 1.3x their time).
//
//	go run ./bench/review -runs 5
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/worktree"
)

var (
	runs      = flag.Int("runs", 5, "runs of each")
	teammates = flag.Int("teammates", 10, "teammates")
	commits   = flag.Int("commits", 50, "commits per teammate")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "review:", err)
		os.Exit(1)
	}
}

func git(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

func run() error {
	tmp, err := os.MkdirTemp("", "bench-review")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cfg := filepath.Join(tmp, "gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = B\n\temail = b@example.com\n"), 0o644)
	os.Setenv("GIT_CONFIG_GLOBAL", cfg)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	bin := filepath.Join(tmp, "paneteam")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/paneteam").CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v\n%s", err, out)
	}
	repo, state := filepath.Join(tmp, "repo"), filepath.Join(tmp, "state")
	recs, err := setup(repo, state)
	if err != nil {
		return err
	}
	cmds := gitCommands(repo, recs)
	var pt, raw []time.Duration
	for i := 0; i < *runs; i++ {
		t0 := time.Now()
		c := exec.Command(bin, "review", "--json")
		c.Dir = repo
		c.Env = append(os.Environ(), "PANETEAM_STATE_DIR="+state)
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("paneteam review: %v\n%s", err, out)
		}
		pt = append(pt, time.Since(t0))
		t0 = time.Now()
		for _, args := range cmds {
			// merge-tree exits 1 on a conflict: an answer, not a failure.
			exec.Command("git", args...).Run() //nolint:errcheck
		}
		raw = append(raw, time.Since(t0))
	}
	p, r := median(pt), median(raw)
	fmt.Printf("teammates %d x %d commits; %d git commands\n", *teammates, *commits, len(cmds))
	fmt.Printf("paneteam review --json  %v\n", p.Round(time.Millisecond))
	fmt.Printf("the git commands alone  %v\n", r.Round(time.Millisecond))
	fmt.Printf("ratio %.2f (target <= 1.3)\n", float64(p)/float64(r))
	return nil
}

// setup makes a repository of 100 files of 100 lines and the teammates'
// worktrees: each changes 40 lines of 50 commits' files (about 2,000
// lines in all), and teammates 0 and 1 also change one shared line, so
// one pair conflicts.
func setup(repo, state string) ([]worktree.Record, error) {
	os.MkdirAll(repo, 0o755)
	if _, err := git(repo, "init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	for f := 0; f < 100; f++ {
		var b strings.Builder
		for l := 0; l < 100; l++ {
			fmt.Fprintf(&b, "file %d line %d\n", f, l)
		}
		os.WriteFile(filepath.Join(repo, fmt.Sprintf("f%03d.txt", f)), []byte(b.String()), 0o644)
	}
	os.WriteFile(filepath.Join(repo, "shared.txt"), []byte("shared\n"), 0o644)
	if _, err := git(repo, "add", "."); err != nil {
		return nil, err
	}
	if _, err := git(repo, "commit", "-q", "-m", "base"); err != nil {
		return nil, err
	}
	store := worktree.OpenRecords(state)
	var recs []worktree.Record
	for i := 0; i < *teammates; i++ {
		name := fmt.Sprintf("mate%02d", i)
		wt, err := worktree.Create(context.Background(), repo, "bench", name)
		if err != nil {
			return nil, err
		}
		r := worktree.Record{Repo: wt.Repo, Path: wt.Path, Branch: wt.Branch, Base: wt.Base, Team: "bench", Member: name}
		if err := store.Write(r); err != nil {
			return nil, err
		}
		for c := 0; c < *commits; c++ {
			file := filepath.Join(wt.Path, fmt.Sprintf("f%03d.txt", (i*10+c/5)%100))
			b, _ := os.ReadFile(file)
			lines := strings.Split(string(b), "\n")
			for l := (c % 5) * 20; l < (c%5)*20+20; l++ {
				lines[l] += fmt.Sprintf(" changed by %s in commit %d", name, c)
			}
			os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644)
			if i < 2 && c == 0 {
				os.WriteFile(filepath.Join(wt.Path, "shared.txt"), []byte(name+"\n"), 0o644)
			}
			if _, err := git(wt.Path, "commit", "-q", "-am", fmt.Sprintf("%s %d", name, c)); err != nil {
				return nil, err
			}
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// gitCommands are the git commands that give review's answers: the
// lead's branch, then per teammate its tip, repository, commits past its
// base, uncommitted and untracked files and lines changed, and the
// in-memory merges with the lead's branch and with each other teammate.
func gitCommands(repo string, recs []worktree.Record) [][]string {
	c := [][]string{
		{"-C", repo, "rev-parse", "--show-toplevel"},
		{"-C", repo, "rev-parse", "--path-format=absolute", "--git-common-dir"},
		{"-C", repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"},
		{"-C", repo, "symbolic-ref", "-q", "HEAD"},
	}
	for _, r := range recs {
		c = append(c,
			[]string{"-C", repo, "rev-parse", "--verify", "--quiet", "refs/heads/" + r.Branch + "^{commit}"},
			[]string{"-C", r.Path, "rev-parse", "--path-format=absolute", "--git-common-dir"},
			[]string{"-C", repo, "rev-list", "--count", r.Base + ".." + r.Branch},
			[]string{"-C", r.Path, "status", "--porcelain=v1", "-z", "--untracked-files=all"},
			[]string{"-C", r.Path, "diff", "--numstat", r.Base},
			[]string{"-C", r.Path, "ls-files", "--others", "--exclude-standard", "-z"},
		)
	}
	for i, r := range recs {
		c = append(c, []string{"-C", repo, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", "main", r.Branch})
		for _, o := range recs[i+1:] {
			c = append(c, []string{"-C", repo, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", r.Branch, o.Branch})
		}
	}
	return c
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}
