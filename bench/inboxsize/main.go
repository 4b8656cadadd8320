// Command inboxsize measures what one refresh of the tmux status line
// (`paneteam status --format tmux`) costs when the lead's inbox holds about
// 40 MB of unread messages: wall time, CPU time and the process's peak
// resident memory (time(1)'s %M). -before DIR builds a second paneteam
// from another checkout (the reference: main before the inbox was read as
// a stream) and runs both interleaved in one run. Two cases: the inbox
// unchanged between refreshes, and rewritten before each refresh (one
// more message), as a teammate writing without pause leaves it.
//
//	go run ./bench/inboxsize -before /path/to/old/checkout
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

var (
	before = flag.String("before", "", "also build paneteam from this checkout and measure it in the same interleaved run")
	runs   = flag.Int("runs", 5, "refreshes of each binary in each case")
	sizeMB = flag.Int("mb", 40, "size of the lead's inbox in MB")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "inboxsize:", err)
		os.Exit(1)
	}
}

type sample struct {
	wall, cpu time.Duration
	rssKB     int64
}

func run() error {
	tmp, err := os.MkdirTemp("", "inboxsize")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bins := map[string]string{}
	for name, dir := range map[string]string{"now": ".", "before": *before} {
		if dir == "" {
			continue
		}
		out := filepath.Join(tmp, "bin", name)
		cmd := exec.Command("go", "build", "-o", out, "./cmd/paneteam")
		cmd.Dir = dir
		if msg, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v\n%s", name, err, msg)
		}
		bins[name] = out
	}
	root := filepath.Join(tmp, "root")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "XDG_STATE_HOME=" + filepath.Join(tmp, "state")}
	create := exec.Command(bins["now"], "--root", root, "team-create", "big")
	create.Env = env
	if out, err := create.CombinedOutput(); err != nil {
		return fmt.Errorf("team-create: %v\n%s", err, out)
	}
	inbox := filepath.Join(root, "teams", "big", "inboxes", "team-lead.json")
	n := writeInbox(inbox, *sizeMB<<20, 0)
	// A child's peak RSS starts from this process's at the fork: keep it small.
	debug.FreeOSMemory()
	st, _ := os.Stat(inbox)
	fmt.Printf("lead's inbox: %d unread messages, %.1f MB\n\n", n, float64(st.Size())/(1<<20))

	names := []string{"now"}
	if bins["before"] != "" {
		names = append(names, "before")
	}
	res := map[string][]sample{}
	for _, changed := range []bool{false, true} {
		for r := 0; r < *runs; r++ {
			for i := range names {
				name := names[(r+i)%len(names)]
				if changed {
					writeInbox(inbox, *sizeMB<<20, r*len(names)+i+1)
					debug.FreeOSMemory()
				}
				// Through time(1): a child of this process inherits its peak
				// RSS at the fork, which would hide the child's own.
				cmd := exec.Command("/usr/bin/time", "-f", "%M", bins[name], "--root", root, "status", "--format", "tmux")
				var stderr strings.Builder
				cmd.Stderr = &stderr
				cmd.Env = env
				start := time.Now()
				out, err := cmd.Output()
				if err != nil {
					return fmt.Errorf("%s: %v", name, err)
				}
				if !strings.Contains(string(out), "✉") {
					return fmt.Errorf("%s printed %q", name, out)
				}
				ps := cmd.ProcessState
				var rss int64
				fmt.Sscan(strings.TrimSpace(stderr.String()), &rss)
				key := fmt.Sprintf("%s/%t", name, changed)
				res[key] = append(res[key], sample{time.Since(start), ps.UserTime() + ps.SystemTime(), rss})
			}
		}
	}
	fmt.Println("| case | binary | wall | CPU | peak RSS |")
	fmt.Println("|---|---|---|---|---|")
	for _, changed := range []bool{false, true} {
		for _, name := range names {
			s := res[fmt.Sprintf("%s/%t", name, changed)]
			c := "unchanged"
			if changed {
				c = "changed before each refresh"
			}
			fmt.Printf("| %s | %s | %v | %v | %.1f MB |\n", c, name,
				median(s, func(x sample) float64 { return float64(x.wall) }, time.Millisecond),
				median(s, func(x sample) float64 { return float64(x.cpu) }, time.Millisecond),
				float64(medianInt(s))/1024)
		}
	}
	return nil
}

// writeInbox writes about size bytes of unread 2 KB messages; extra adds
// that many short messages at the end, so that each rewrite differs.
func writeInbox(path string, size, extra int) int {
	type msg struct {
		From      string `json:"from"`
		Text      string `json:"text"`
		Timestamp string `json:"timestamp"`
		Color     string `json:"color"`
		Read      bool   `json:"read"`
	}
	var msgs []msg
	body := strings.Repeat("x", 2000)
	for total := 0; total < size; total += 2100 {
		msgs = append(msgs, msg{"alice", fmt.Sprintf("%s %d", body, len(msgs)), "2026-11-20T10:00:00.000Z", "blue", false})
	}
	for i := 0; i < extra; i++ {
		msgs = append(msgs, msg{"alice", fmt.Sprintf("more %d", i), "2026-11-20T10:00:01.000Z", "blue", false})
	}
	b, _ := json.MarshalIndent(msgs, "", "  ")
	tmp := path + ".new"
	if err := os.WriteFile(tmp, b, 0o600); err == nil {
		// Written a minute ago: a status line memoises only an inbox that
		// has settled (a second write within a coarse mtime's tick could
		// hide), so the changed case costs a count and a memo write, and the
		// unchanged one is the memo's from the first refresh on.
		ago := time.Now().Add(-time.Minute)
		os.Chtimes(tmp, ago, ago)
		os.Rename(tmp, path)
	}
	return len(msgs)
}

func median(s []sample, f func(sample) float64, unit time.Duration) string {
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	sort.Float64s(v)
	return fmt.Sprintf("%.0f ms", v[len(v)/2]/float64(unit))
}

func medianInt(s []sample) int64 {
	v := make([]int64, len(s))
	for i, x := range s {
		v[i] = x.rssKB
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v[len(v)/2]
}
