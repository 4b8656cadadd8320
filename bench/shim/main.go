// Command shim measures what paneteam costs when it plays tmux for Claude
// Code ('paneteam claude'): the same tmux calls Claude Code makes
// to spawn one teammate inside tmux (docs/CLAUDE-TMUX.md), sent to the
// real tmux and to paneteam run as tmux, in the same run, each on a
// private server of its own; and one call passed through (list-panes, as
// Claude's lead sends it) against the same call to tmux.
//
//	go run ./bench/shim [-n 6] [-calls 100] [-runs 3]
//
// It prints both times and their ratios (paneteam / tmux), and the mean
// time of each kind of call in the spawn sequence through both: what the
// shim costs per call, passed through (one paneteam start before tmux)
// or interpreted (split, respawn, kill, re-layout). Never touches the
// default tmux server.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 6, "teammates per run")
	calls := flag.Int("calls", 100, "pass-through calls per run")
	runs := flag.Int("runs", 3, "runs of each; the median is reported")
	flag.Parse()
	if err := run(*n, *calls, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench/shim:", err)
		os.Exit(1)
	}
}

type rig struct {
	sock string
	tmux string // the program called as tmux
	env  []string
	lead string
	per  map[string][]time.Duration // spawn's calls' times, by command
}

func run(n, calls, runs int) error {
	work, err := os.MkdirTemp("/tmp", "ptbs")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	real, err := exec.LookPath("tmux")
	if err != nil {
		return err
	}
	bin := filepath.Join(work, "bin")
	os.Mkdir(bin, 0o700)
	build := exec.Command("go", "build", "-o", filepath.Join(work, "paneteam"), "./cmd/paneteam")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build paneteam: %v\n%s", err, out)
	}
	if err := os.Symlink(filepath.Join(work, "paneteam"), filepath.Join(bin, "tmux")); err != nil {
		return err
	}
	var spawnT, spawnS, passT, passS []time.Duration
	per := map[bool]map[string][]time.Duration{false: {}, true: {}}
	for r := 0; r < runs; r++ {
		for _, shim := range []bool{false, true} {
			g, stop, err := start(work, real, bin, shim, r)
			if err != nil {
				return err
			}
			d, err := g.spawn(n)
			if err != nil {
				stop()
				return err
			}
			for c, ds := range g.per {
				per[shim][c] = append(per[shim][c], ds...)
			}
			p, err := g.pass(calls)
			stop()
			if err != nil {
				return err
			}
			if shim {
				spawnS, passS = append(spawnS, d), append(passS, p)
			} else {
				spawnT, passT = append(spawnT, d), append(passT, p)
			}
		}
	}
	st, ss, pt, ps := median(spawnT), median(spawnS), median(passT), median(passS)
	fmt.Printf("machine: %s/%s, %d CPUs\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Printf("spawn sequence, %d teammates: tmux %s (%s/teammate), paneteam as tmux %s (%s/teammate), ratio %.2f\n",
		n, st.Round(time.Millisecond), (st / time.Duration(n)).Round(time.Millisecond),
		ss.Round(time.Millisecond), (ss / time.Duration(n)).Round(time.Millisecond), float64(ss)/float64(st))
	fmt.Printf("one call passed through: tmux %s, paneteam as tmux %s (+%s per call), ratio %.2f\n",
		(pt / time.Duration(calls)).Round(10*time.Microsecond), (ps / time.Duration(calls)).Round(10*time.Microsecond),
		((ps - pt) / time.Duration(calls)).Round(10*time.Microsecond), float64(ps)/float64(pt))
	fmt.Printf("the spawn sequence's calls, mean per call (calls a teammate):\n")
	var cmds []string
	for c := range per[false] {
		cmds = append(cmds, c)
	}
	sort.Strings(cmds)
	for _, c := range cmds {
		t, s := mean(per[false][c]), mean(per[true][c])
		fmt.Printf("  %-16s (%4.1f): tmux %6.2f ms, paneteam as tmux %6.2f ms (%+.2f ms)\n", c,
			float64(len(per[false][c]))/float64(n*runs), ms(t), ms(s), ms(s-t))
	}
	return nil
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(len(ds), 1))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// start makes a private server with a 200x50 lead pane; with shim, calls
// go to paneteam run as tmux, as 'paneteam claude' sets it up.
func start(work, real, bin string, shim bool, r int) (*rig, func(), error) {
	sock := filepath.Join(work, fmt.Sprintf("s%d%v", r, shim))
	out, err := exec.Command(real, "-S", sock, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-P", "-F", "#{pane_id}").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("start tmux: %w", err)
	}
	g := &rig{sock: sock, tmux: real, lead: strings.TrimSpace(string(out)), env: os.Environ(), per: map[string][]time.Duration{}}
	if shim {
		g.tmux = filepath.Join(bin, "tmux")
		g.env = append(g.env, "PATH="+bin+":"+os.Getenv("PATH"), "PANETEAM_SHIM_DIR="+bin, "PANETEAM_SHIM_TMUX="+real, "PANETEAM_SHIM_SOCKET="+sock)
	}
	g.env = append(g.env, "TMUX="+sock+",1,0", "TMUX_PANE="+g.lead)
	return g, func() { exec.Command(real, "-S", sock, "kill-server").Run() }, nil
}

func (g *rig) call(args ...string) (string, error) {
	cmd := exec.CommandContext(context.Background(), g.tmux, append([]string{"-S", g.sock}, args...)...)
	cmd.Env = g.env
	start := time.Now()
	out, err := cmd.Output()
	g.per[args[0]] = append(g.per[args[0]], time.Since(start))
	if err != nil {
		return "", fmt.Errorf("tmux %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// spawn sends Claude Code's calls for n teammates (the command
// is `sleep`) and returns the time taken.
func (g *rig) spawn(n int) (time.Duration, error) {
	start := time.Now()
	win, err := g.call("display-message", "-t", g.lead, "-p", "#{window_id}")
	if err != nil {
		return 0, err
	}
	var first string
	for i := 0; i < n; i++ {
		if _, err := g.call("list-panes", "-t", win, "-F", "#{pane_id}"); err != nil {
			return 0, err
		}
		args := []string{"split-window", "-d", "-t", g.lead, "-h", "-l", "70%", "-P", "-F", "#{pane_id}", "--", "cat"}
		if i > 0 {
			dir := "-v"
			if i%2 == 0 {
				dir = "-h"
			}
			args = []string{"split-window", "-d", "-t", first, dir, "-P", "-F", "#{pane_id}", "--", "cat"}
		}
		pane, err := g.call(args...)
		if err != nil {
			return 0, err
		}
		if i == 0 {
			first = pane
		}
		seq := [][]string{
			{"set-option", "-p", "-t", pane, "window-style", "bg=default,fg=blue"},
			{"set-option", "-p", "-t", pane, "pane-border-style", "fg=blue"},
			{"set-option", "-p", "-t", pane, "pane-active-border-style", "fg=blue"},
			{"select-pane", "-t", pane, "-T", fmt.Sprintf("mate%d", i)},
			{"set-option", "-p", "-t", pane, "pane-border-format", "#[fg=blue,bold] #{pane_title} #[default]"},
			{"list-panes", "-t", win, "-F", "#{pane_id}"},
		}
		if i == 0 {
			seq = append(seq, []string{"set-option", "-w", "-t", win, "pane-border-status", "top"})
		} else {
			seq = append(seq, []string{"select-layout", "-t", win, "main-vertical"}, []string{"resize-pane", "-t", g.lead, "-x", "30%"})
		}
		seq = append(seq, []string{"set-option", "-p", "-t", pane, "remain-on-exit", "failed"},
			[]string{"respawn-pane", "-k", "-t", pane, "--", fmt.Sprintf("cd /tmp && env A=1 sh -c 'exec sleep 600' sh --agent-id mate%d@bench", i)})
		for _, c := range seq {
			if _, err := g.call(c...); err != nil {
				return 0, err
			}
		}
	}
	return time.Since(start), nil
}

func (g *rig) pass(calls int) (time.Duration, error) {
	start := time.Now()
	for i := 0; i < calls; i++ {
		if _, err := g.call("list-panes", "-t", g.lead, "-F", "#{pane_id}"); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
