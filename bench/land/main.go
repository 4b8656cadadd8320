// Command land measures `paneteam land --all --test true` for 10 teammates,
// each with a few commits, against the git commands alone that do the
// same job (a scratch worktree detached at the lead's tip, each branch
// merged there, the test run after each, the lead's branch fast-forwarded
// to the result, the scratch and the teammates' worktrees and branches
// removed), run by this program, interleaved in one run (issue 40: at
// most 1.3x their time). Each run lands a fresh copy of the same team,
// made before the clock starts.
//
//	go run ./bench/land -runs 9
//	go run ./bench/land -runs 1 -trace DIR   # also counts paneteam's git processes
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
	runs      = flag.Int("runs", 9, "runs of each")
	teammates = flag.Int("teammates", 10, "teammates")
	commits   = flag.Int("commits", 3, "commits per teammate")
	bin       = flag.String("bin", "", "a paneteam binary to measure (default: built from this tree)")
	before    = flag.String("before", "", "a second paneteam binary (e.g. built from main), measured in the same runs")
	trace     = flag.String("trace", "", "a folder: put a git wrapper first on PATH that logs each git paneteam runs there, and print the count")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "land:", err)
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
	tmp, err := os.MkdirTemp("", "bench-land")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cfg := filepath.Join(tmp, "gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = B\n\temail = b@example.com\n"), 0o644)
	os.Setenv("GIT_CONFIG_GLOBAL", cfg)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	pt := *bin
	if pt == "" {
		pt = filepath.Join(tmp, "paneteam")
		if out, err := exec.Command("go", "build", "-o", pt, "./cmd/paneteam").CombinedOutput(); err != nil {
			return fmt.Errorf("build: %v\n%s", err, out)
		}
	}
	env := os.Environ()
	if *trace != "" {
		if env, err = traced(*trace, env); err != nil {
			return err
		}
	}
	var ptimes, btimes, gtimes, pcpu, bcpu, gcpu []time.Duration
	var pairs, bpairs []float64 // per run: paneteam's time over the git commands' in that run
	for i := 0; i < *runs; i++ {
		d, cpu, err := landAll(pt, filepath.Join(tmp, fmt.Sprintf("p%d", i)), env)
		if err != nil {
			return err
		}
		ptimes, pcpu = append(ptimes, d), append(pcpu, cpu)
		if *before != "" {
			d, cpu, err := landAll(*before, filepath.Join(tmp, fmt.Sprintf("b%d", i)), os.Environ())
			if err != nil {
				return err
			}
			btimes, bcpu = append(btimes, d), append(bcpu, cpu)
		}

		repo, state := filepath.Join(tmp, fmt.Sprintf("g%d", i), "repo"), filepath.Join(tmp, fmt.Sprintf("g%d", i), "state")
		recs, err := setup(repo, state)
		if err != nil {
			return err
		}
		t0 := time.Now()
		cpu, err = byHand(repo, filepath.Join(tmp, fmt.Sprintf("g%d", i), "scratch"), recs)
		if err != nil {
			return err
		}
		gtimes, gcpu = append(gtimes, time.Since(t0)), append(gcpu, cpu)
		pairs = append(pairs, float64(ptimes[i])/float64(gtimes[i]))
		if *before != "" {
			bpairs = append(bpairs, float64(btimes[i])/float64(gtimes[i]))
		}
	}
	p, g := median(ptimes), median(gtimes)
	fmt.Printf("teammates %d x %d commits, --test true, %d runs\n", *teammates, *commits, *runs)
	fmt.Printf("paneteam land --all     median %v  (all: %v)\n", p.Round(time.Millisecond), rounded(ptimes))
	fmt.Printf("the git commands alone  median %v  (all: %v)\n", g.Round(time.Millisecond), rounded(gtimes))
	fmt.Printf("ratio of the medians %.2f, median of each run's ratio %.2f (target <= 1.3)\n", float64(p)/float64(g), medianF(pairs))
	fmt.Printf("CPU (user+system, git's included): paneteam %v, the git commands %v, ratio %.2f\n",
		median(pcpu).Round(time.Millisecond), median(gcpu).Round(time.Millisecond), float64(median(pcpu))/float64(median(gcpu)))
	if *before != "" {
		b := median(btimes)
		fmt.Printf("before (%s)  median %v  (all: %v), ratio of the medians %.2f, median of each run's ratio %.2f, CPU %v (%.2f)\n", *before, b.Round(time.Millisecond), rounded(btimes),
			float64(b)/float64(g), medianF(bpairs), median(bcpu).Round(time.Millisecond), float64(median(bcpu))/float64(median(gcpu)))
	}
	if *trace != "" {
		b, _ := os.ReadFile(filepath.Join(*trace, "log"))
		fmt.Printf("git processes paneteam ran: %d over %d run(s) (log: %s)\n", strings.Count(string(b), "\n"), *runs, filepath.Join(*trace, "log"))
	}
	return nil
}

// landAll makes a fresh team under dir and times `land --all --test
// true` of it by the paneteam binary bin.
func landAll(bin, dir string, env []string) (wall, cpu time.Duration, err error) {
	repo, state := filepath.Join(dir, "repo"), filepath.Join(dir, "state")
	if _, err := setup(repo, state); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	c := exec.Command(bin, "land", "--all", "--test", "true", "--json")
	c.Dir = repo
	c.Env = append(env, "PANETEAM_STATE_DIR="+state)
	out, err := c.CombinedOutput()
	d := time.Since(t0)
	if err != nil || strings.Count(string(out), `"outcome": "landed"`) != *teammates {
		return 0, 0, fmt.Errorf("%s land --all: %v\n%s", bin, err, out)
	}
	return d, cpuOf(c), nil
}

// cpuOf is the CPU a finished command and the children it waited for
// used (wait4's rusage).
func cpuOf(c *exec.Cmd) time.Duration {
	return c.ProcessState.UserTime() + c.ProcessState.SystemTime()
}

// traced puts a git first on PATH that logs its arguments to dir/log and
// runs the real git.
func traced(dir string, env []string) ([]string, error) {
	real, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	os.MkdirAll(dir, 0o755)
	os.Remove(filepath.Join(dir, "log"))
	// One line per git, its arguments' newlines (a merge's -m message) made spaces.
	script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$(printf '%%s' \"$*\" | tr '\\n' ' ')\" >> %s/log\nexec %s \"$@\"\n", dir, real)
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		return nil, err
	}
	return append(env, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH")), nil
}

// byHand is the same job as git commands alone: a scratch worktree
// detached at the lead's tip, each branch merged there (--no-ff, as
// land's default) and the test run, the lead fast-forwarded, and the
// scratch and each teammate's worktree and branch removed (git's own
// checks: worktree remove refuses a dirty tree, branch -d an unmerged
// branch).
func byHand(repo, scratch string, recs []worktree.Record) (time.Duration, error) {
	var cpu time.Duration
	run := func(dir string, args ...string) (string, error) {
		c := exec.Command(args[0], args[1:]...)
		c.Dir = dir
		out, err := c.CombinedOutput()
		if c.ProcessState != nil {
			cpu += cpuOf(c)
		}
		if err != nil {
			return "", fmt.Errorf("%v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out)), nil
	}
	steps := [][]string{{"git", "-C", repo, "worktree", "add", "--quiet", "--detach", scratch, "main"}}
	for _, r := range recs {
		steps = append(steps, []string{"git", "-C", scratch, "merge", "--quiet", "--no-ff", "--no-edit", "-m", "Merge branch '" + r.Branch + "'", r.Branch}, []string{"sh", "-c", "true"})
	}
	for i, s := range steps {
		dir := scratch // sh runs the test there
		if i == 0 {
			dir = repo // the scratch is not there yet
		}
		if _, err := run(dir, s...); err != nil {
			return 0, err
		}
	}
	tip, err := run(repo, "git", "-C", scratch, "rev-parse", "HEAD")
	if err != nil {
		return 0, err
	}
	steps = [][]string{{"git", "-C", repo, "merge", "--ff-only", "--quiet", tip}, {"git", "-C", repo, "worktree", "remove", scratch}}
	for _, r := range recs {
		steps = append(steps, []string{"git", "-C", repo, "worktree", "remove", r.Path}, []string{"git", "-C", repo, "branch", "-q", "-d", r.Branch})
	}
	for _, s := range steps {
		if _, err := run(repo, s...); err != nil {
			return 0, err
		}
	}
	return cpu, nil
}

// setup makes a repository of 100 files of 100 lines and the teammates'
// worktrees, recorded as ended: each commits a few changes to files of
// its own, so every one lands.
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
			file := filepath.Join(wt.Path, fmt.Sprintf("f%03d.txt", i%100))
			b, _ := os.ReadFile(file)
			os.WriteFile(file, append(b, fmt.Sprintf("%s commit %d\n", name, c)...), 0o644)
			if _, err := git(wt.Path, "commit", "-q", "-am", fmt.Sprintf("%s %d", name, c)); err != nil {
				return nil, err
			}
		}
		recs = append(recs, r)
	}
	return recs, nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func medianF(fs []float64) float64 {
	s := append([]float64(nil), fs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func rounded(ds []time.Duration) []time.Duration {
	var out []time.Duration
	for _, d := range ds {
		out = append(out, d.Round(time.Millisecond))
	}
	return out
}
