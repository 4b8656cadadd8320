// Command spawn measures how long it takes to start teammates in tmux
// panes: paneteam spawn-pane (the real binary, one process per teammate,
// as a user or a lead agent runs it) against Claude Code 2.1.88's method
// (split, select-layout, resize, style, a fixed 200 ms sleep, send-keys),
// in the same run, each on a private tmux server of its own.
//
//	go run ./bench/spawn [-n 10] [-runs 3] [-before DIR]
//
// It prints both times and their ratio (paneteam / Claude Code); lower is
// better. -before DIR also builds paneteam from another checkout (say a
// `git archive` of an older commit) and times it in the same runs, taking
// turns with the others, so what a spawn has gained since shows beside
// today's. Never touches the default tmux server or ~/.claude.
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
	"strconv"
	"strings"
	"time"

	"github.com/paneteam/paneteam/tmux"
)

// claudeDelay is Claude Code 2.1.88's fixed wait between creating a pane
// and typing the command into it.
const claudeDelay = 200 * time.Millisecond

func main() {
	n := flag.Int("n", 10, "teammates per run")
	runs := flag.Int("runs", 3, "runs of each method; the median is reported")
	before := flag.String("before", "", "also build paneteam from this checkout and time it in the same runs")
	flag.Parse()
	if err := run(*n, *runs, *before); err != nil {
		fmt.Fprintln(os.Stderr, "bench/spawn:", err)
		os.Exit(1)
	}
}

func run(n, runs int, beforeDir string) error {
	work, err := os.MkdirTemp("/tmp", "ptb")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "paneteam")
	build := exec.Command("go", "build", "-o", bin, "./cmd/paneteam")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build paneteam: %v\n%s", err, out)
	}
	binBefore := ""
	if beforeDir != "" {
		binBefore = filepath.Join(work, "paneteam-before")
		build := exec.Command("go", "build", "-o", binBefore, "./cmd/paneteam")
		build.Dir = beforeDir
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("build paneteam in %s: %v\n%s", beforeDir, err, out)
		}
	}
	var ours, theirs, earlier, oursCPU, earlierCPU []time.Duration
	for r := 0; r < runs; r++ {
		d, cpu, err := timePaneteam(work, bin, "p", r, n)
		if err != nil {
			return fmt.Errorf("paneteam: %w", err)
		}
		ours, oursCPU = append(ours, d), append(oursCPU, cpu)
		if binBefore != "" {
			d, cpu, err := timePaneteam(work, binBefore, "b", r, n)
			if err != nil {
				return fmt.Errorf("paneteam before: %w", err)
			}
			earlier, earlierCPU = append(earlier, d), append(earlierCPU, cpu)
		}
		d, err = timeClaude(work, r, n)
		if err != nil {
			return fmt.Errorf("claude code method: %w", err)
		}
		theirs = append(theirs, d)
	}
	o, c := median(ours), median(theirs)
	fmt.Printf("machine: %s\n", machine())
	fmt.Printf("%d sequential spawns, median of %d runs\n", n, runs)
	fmt.Printf("  paneteam spawn-pane:          %7.1f ms (%5.1f ms per teammate) runs %v; CPU %.2f ms per teammate\n", ms(o), ms(o)/float64(n), msList(ours), ms(median(oursCPU))/float64(n))
	fmt.Printf("  Claude Code 2.1.88 method:    %7.1f ms (%5.1f ms per teammate) runs %v\n", ms(c), ms(c)/float64(n), msList(theirs))
	fmt.Printf("  ratio paneteam / Claude Code: %.2f (target <= 0.34)\n", float64(o)/float64(c))
	if binBefore != "" {
		b := median(earlier)
		fmt.Printf("  before (%s):  %7.1f ms (%5.1f ms per teammate) runs %v, ratio %.2f; CPU %.2f ms per teammate\n", beforeDir, ms(b), ms(b)/float64(n), msList(earlier), float64(b)/float64(c), ms(median(earlierCPU))/float64(n))
	}
	return nil
}

// server starts a private server with a 200x50 window whose first pane
// plays the lead.
func server(work, name string) (tmux.Server, string, func(), error) {
	srv := tmux.Server{Socket: filepath.Join(work, name), Config: "/dev/null"}
	ctx := context.Background()
	if _, err := srv.Run(ctx, "new-session", "-d", "-s", "lead", "-x", "200", "-y", "50", "sh"); err != nil {
		return srv, "", nil, err
	}
	stop := func() { srv.Run(context.Background(), "kill-server") }
	lead, err := srv.Run(ctx, "display-message", "-p", "-t", "lead", "#{pane_id}")
	if err != nil {
		stop()
		return srv, "", nil, err
	}
	// Claude Code types into the user's shell; make it a fast one, which
	// favours the reference.
	srv.Run(ctx, "set-option", "-g", "default-shell", "/bin/sh")
	return srv, lead, stop, nil
}

// timePaneteam returns the wall time of n spawns and the CPU time (user
// and system) of their spawn-pane processes, which waiting on tmux and
// the startup watch do not count, so it shows paneteam's own work even on
// a busy machine.
func timePaneteam(work, bin, tag string, r, n int) (wall, cpu time.Duration, err error) {
	srv, lead, stop, err := server(work, tag+strconv.Itoa(r))
	if err != nil {
		return 0, 0, err
	}
	defer stop()
	root := filepath.Join(work, tag+"root"+strconv.Itoa(r))
	home := filepath.Join(work, tag+"home"+strconv.Itoa(r))
	if err := os.MkdirAll(home, 0o700); err != nil {
		return 0, 0, err
	}
	pid, _ := srv.Run(context.Background(), "display-message", "-p", "#{pid}")
	// A HOME and a state folder of the run's own: launch records and
	// usage cursors stay out of the user's.
	env := append(cleanEnv(), "PANETEAM_ROOT="+root, "TMUX="+srv.Socket+","+pid+",0", "TMUX_PANE="+lead,
		"HOME="+home, "XDG_STATE_HOME=", "XDG_CONFIG_HOME=", "PANETEAM_STATE_DIR="+filepath.Join(home, "state"))
	var used time.Duration
	pt := func(args ...string) error {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("paneteam %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		used += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return nil
	}
	if err := pt("team-create", "bench", "--leader-pid", strconv.Itoa(os.Getpid())); err != nil {
		return 0, 0, err
	}
	used = 0
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := pt("spawn-pane", "--team", "bench", "--name", "w", "--", "sleep", "600"); err != nil {
			return 0, 0, err
		}
	}
	return time.Since(start), used, nil
}

// timeClaude reproduces Claude Code 2.1.88 (docs/PROTOCOL.md §13): the
// first teammate splits the lead -h -l 70%; later ones split the last
// teammate alternating -v/-h, then select-layout main-vertical and
// resize the lead to 30%; each pane is titled and coloured; after 200 ms
// the command is typed with send-keys.
func timeClaude(work string, r, n int) (time.Duration, error) {
	srv, lead, stop, err := server(work, "c"+strconv.Itoa(r))
	if err != nil {
		return 0, err
	}
	defer stop()
	ctx := context.Background()
	start := time.Now()
	var last string
	for i := 0; i < n; i++ {
		var pane string
		if i == 0 {
			pane, err = srv.Run(ctx, "split-window", "-t", lead, "-h", "-l", "70%", "-P", "-F", "#{pane_id}")
		} else {
			dir := "-v"
			if i%2 == 0 {
				dir = "-h"
			}
			pane, err = srv.Run(ctx, "split-window", "-t", last, dir, "-P", "-F", "#{pane_id}")
			if err == nil {
				_, err = srv.Run(ctx, "select-layout", "-t", lead, "main-vertical")
			}
			if err == nil {
				_, err = srv.Run(ctx, "resize-pane", "-t", lead, "-x", "30%")
			}
		}
		if err != nil {
			return 0, err
		}
		last = pane
		for _, c := range [][]string{
			{"select-pane", "-t", pane, "-T", "w" + strconv.Itoa(i)},
			{"set-option", "-p", "-t", pane, "pane-border-style", "fg=red"},
			{"set-option", "-p", "-t", pane, "pane-active-border-style", "fg=red"},
			{"set-option", "-w", "-t", pane, "pane-border-status", "top"},
		} {
			if _, err := srv.Run(ctx, c...); err != nil {
				return 0, err
			}
		}
		time.Sleep(claudeDelay)
		if _, err := srv.Run(ctx, "send-keys", "-t", pane, "exec sleep 600", "Enter"); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TMUX") || strings.HasPrefix(k, "PANETEAM_") || k == "CLAUDE_CONFIG_DIR" || k == "HOME" || strings.HasPrefix(k, "XDG_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func machine() string {
	cpu := runtime.GOARCH
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				_, v, _ := strings.Cut(l, ":")
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	v, _ := exec.Command("tmux", "-V").Output()
	return fmt.Sprintf("%s/%s, %s, %d CPUs, %s, %s, %s", runtime.GOOS, runtime.GOARCH, cpu, runtime.NumCPU(),
		strings.TrimSpace(string(v)), runtime.Version(), time.Now().UTC().Format("2006-01-02"))
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func msList(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = strconv.FormatFloat(ms(d), 'f', 0, 64)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
