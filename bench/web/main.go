// Command web measures paneteam web (issue 41's figures) in a real
// headless Chromium: the real paneteam-web, built from this tree, serves a
// team of 30 teammates, each a pane of a private tmux server started by
// paneteam spawn-pane, on a root and state folder of the run's own.
//
//	go run ./bench/web [-members 30] [-changes 50] [-idle 20s] [-before DIR]
//
// It reports:
//   - from a change on disk to the page showing it, p50/p90/max: a
//     teammate going idle (an idle_notification appended to the lead's
//     inbox, as Claude Code's teammates send one at every turn's end) and
//     a permission request arriving there. The write is stamped in Go just
//     before it starts; the page stamps the DOM change with a
//     MutationObserver (performance.timeOrigin + performance.now(), the
//     same wall clock);
//   - the first load: what the network carried for the page and its
//     assets (CDP Network.loadingFinished encodedDataLength) and their
//     bodies uncompressed, and the event stream's first view apart;
//   - the server's CPU (/proc/PID/stat) over an interval where nothing
//     changes, with the page open and its event stream connected, and the
//     private tmux server's beside it (the server asks it about panes);
//   - the server's resident memory after the run (VmRSS, VmHWM).
//
// Never touches the default tmux server, ~/.claude or the person's state.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paneteam/paneteam/tmux"
)

var (
	members = flag.Int("members", 30, "teammates in the team")
	changes = flag.Int("changes", 50, "changes on disk to time (idle notices, then requests among them)")
	idleFor = flag.Duration("idle", 20*time.Second, "how long nothing changes while the server's CPU is counted")
	keep    = flag.Bool("keep", false, "keep the run's folder (printed) for a look afterwards")
	before  = flag.String("before", "", "also build paneteam from this checkout (a `git archive` of an older commit) and measure it first, in the same run")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/web:", err)
		os.Exit(1)
	}
}

func run() error {
	// Short: the tmux socket's path must stay under about 100 bytes.
	work, err := os.MkdirTemp("/tmp", "ptw")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Println("run folder:", work)
	} else {
		defer os.RemoveAll(work)
	}
	fmt.Printf("machine: %s\n", machine())
	if *before != "" {
		fmt.Printf("\n== before: %s\n", *before)
		if err := measure(filepath.Join(work, "b"), *before); err != nil {
			return fmt.Errorf("before: %w", err)
		}
		fmt.Printf("\n== now: this tree\n")
	}
	return measure(filepath.Join(work, "n"), ".")
}

// measure builds paneteam and paneteam-web from the tree in src and
// takes every figure once.
func measure(work, src string) error {
	if err := os.MkdirAll(work, 0o700); err != nil {
		return err
	}
	pt, web := filepath.Join(work, "paneteam"), filepath.Join(work, "paneteam-web")
	for bin, pkg := range map[string]string{pt: "./cmd/paneteam", web: "./cmd/paneteam-web"} {
		c := exec.Command("go", "build", "-o", bin, pkg)
		c.Dir = src
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s in %s: %v\n%s", pkg, src, err, out)
		}
	}
	b, err := newBench(work, pt, web)
	if err != nil {
		return err
	}
	defer b.stop()
	if err := b.team(*members); err != nil {
		return err
	}
	if err := b.serve(); err != nil {
		return err
	}
	br, err := openBrowser(work)
	if err != nil {
		return err
	}
	defer br.close()
	load, err := br.load(b.url, *members+1)
	if err != nil {
		return err
	}
	// Let the first snapshot's follow-ups (the watcher's first poll) pass.
	time.Sleep(2 * time.Second)
	idle, err := b.idleCPU(br, *idleFor)
	if err != nil {
		return err
	}
	lat, err := b.changes(br, *changes)
	if err != nil {
		return err
	}
	mem, err := status(b.web.Process.Pid)
	if err != nil {
		return err
	}
	report(b, load, idle, lat, mem)
	return nil
}

func report(b *bench, load loadFigures, idle idleFigures, lat latencies, mem memFigures) {
	fmt.Printf("team: %d teammates in panes of a private tmux server, lead's inbox %s at the end\n", *members, kb(fileSize(b.leadInbox())))
	fmt.Printf("change on disk -> page shows it (%d changes; the page's stamps within %.1f ms of its Date.now())\n", len(lat.all), lat.skew)
	for _, k := range []string{"all", "idle", "request"} {
		ds := lat.of(k)
		if len(ds) == 0 {
			continue
		}
		fmt.Printf("  %-8s n=%-3d p50 %6.1f ms  p90 %6.1f ms  max %6.1f ms  (target p50 <= 100 ms)\n", k, len(ds), pct(ds, 50), pct(ds, 90), pct(ds, 100))
	}
	fmt.Printf("first load: %s transferred, %s uncompressed, %d requests (target <= 150 KB)\n", kb(load.encoded), kb(load.decoded), load.requests)
	for _, r := range load.each {
		fmt.Printf("  %-28s %8s transferred %8s body\n", r.url, kb(r.encoded), kb(r.decoded))
	}
	fmt.Printf("  then the event stream (open, so not counted above): its first view is %s of JSON\n", kb(load.streamData))
	fmt.Printf("idle %v, page open: server CPU %d ms (%d ticks of %d Hz; %.1f ms on CPU by schedstat, %.2f%% of one core), its children %d ms; tmux server %d ms; %d views pushed\n",
		idle.wall.Round(time.Millisecond), idle.cpu.Milliseconds(), idle.ticks, clockTicks, float64(idle.sched.Microseconds())/1000,
		100*float64(idle.sched)/float64(idle.wall), idle.children.Milliseconds(), idle.tmux.Milliseconds(), idle.views)
	fmt.Printf("memory after the run: VmRSS %s, VmHWM %s (target <= 40 MB)\n", mb(mem.rss), mb(mem.hwm))
}

// bench is one run: the private tmux server, the team's folders and the
// paneteam web process.
type bench struct {
	work, pt, webBin string
	srv              tmux.Server
	env              []string
	root             string
	web              *exec.Cmd
	url              string
	colors           map[string]string
}

func newBench(work, pt, web string) (*bench, error) {
	b := &bench{work: work, pt: pt, webBin: web, root: filepath.Join(work, "root"), colors: map[string]string{}}
	b.srv = tmux.Server{Socket: filepath.Join(work, "s"), Config: "/dev/null"}
	ctx := context.Background()
	// Room for 30 panes: spawn-pane refuses a split below tmux's minimum.
	if _, err := b.srv.Run(ctx, "new-session", "-d", "-s", "lead", "-x", "400", "-y", "120", "sh"); err != nil {
		return nil, fmt.Errorf("start the tmux server: %w", err)
	}
	b.srv.Run(ctx, "set-option", "-g", "default-shell", "/bin/sh") //nolint:errcheck
	lead, err := b.srv.Run(ctx, "display-message", "-p", "-t", "lead", "#{pane_id}")
	if err != nil {
		b.stop()
		return nil, err
	}
	pid, err := b.srv.Run(ctx, "display-message", "-p", "#{pid}")
	if err != nil {
		b.stop()
		return nil, err
	}
	home := filepath.Join(work, "home")
	for _, d := range []string{home, b.root, filepath.Join(work, "claude")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.stop()
			return nil, err
		}
	}
	// A HOME, root, Claude folder and state folder of the run's own, and
	// the lead's pane of the private server as "inside tmux".
	b.env = append(cleanEnv(), "HOME="+home, "PANETEAM_ROOT="+b.root, "CLAUDE_CONFIG_DIR="+filepath.Join(work, "claude"),
		"PANETEAM_STATE_DIR="+filepath.Join(work, "state"), "XDG_STATE_HOME=", "XDG_CONFIG_HOME=", "XDG_CACHE_HOME=",
		"TMUX="+b.srv.Socket+","+pid+",0", "TMUX_PANE="+lead, "PANETEAM_WEB_BIN="+web)
	return b, nil
}

func (b *bench) stop() {
	if b.web != nil && b.web.Process != nil {
		b.web.Process.Signal(syscall.SIGINT) //nolint:errcheck
		done := make(chan struct{})
		go func() { b.web.Wait(); close(done) }() //nolint:errcheck
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			b.web.Process.Kill() //nolint:errcheck
		}
	}
	b.srv.Run(context.Background(), "kill-server") //nolint:errcheck
}

func (b *bench) run(args ...string) (string, error) {
	c := exec.Command(b.pt, args...)
	c.Env = b.env
	out, err := c.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("paneteam %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// team makes team bench with n teammates as a person does: team-create
// from the lead's pane, then one spawn-pane per teammate, each running a
// program that waits.
func (b *bench) team(n int) error {
	leadPID, err := b.srv.Run(context.Background(), "display-message", "-p", "-t", "lead", "#{pane_pid}")
	if err != nil {
		return err
	}
	if _, err := b.run("team-create", "bench", "--leader-pid", strings.TrimSpace(leadPID)); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if _, err := b.run("spawn-pane", "--team", "bench", "--name", mate(i), "--startup-check", "0", "--", "sleep", "86400"); err != nil {
			return err
		}
	}
	return b.loadColors()
}

func mate(i int) string { return fmt.Sprintf("mate%02d", i) }

// serve starts paneteam web on a free port of loopback and reads the URL
// it prints first. paneteam execs paneteam-web (PANETEAM_WEB_BIN), so
// the process's pid is the server's.
func (b *bench) serve() error {
	c := exec.Command(b.pt, "web", "--team", "bench", "--listen", "127.0.0.1:0", "--json")
	c.Env = b.env
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return err
	}
	b.web = c
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("paneteam web printed no URL: %w", err)
	}
	var u struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal([]byte(line), &u); err != nil || u.URL == "" {
		return fmt.Errorf("paneteam web's first line is not its URL: %q", line)
	}
	b.url = u.URL
	go func() { // keep reading, so the server never blocks on a full pipe
		s := bufio.NewScanner(out)
		for s.Scan() {
		}
	}()
	return nil
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
	load, _ := os.ReadFile("/proc/loadavg")
	chrome, _ := exec.Command("chromium", "--version").Output()
	v, _ := exec.Command("tmux", "-V").Output()
	return fmt.Sprintf("%s/%s, %s, %d CPUs, load average %s, %s, %s, %s, %s", runtime.GOOS, runtime.GOARCH, cpu, runtime.NumCPU(),
		strings.Join(strings.Fields(string(load))[:3], " "), strings.TrimSpace(string(chrome)), strings.TrimSpace(string(v)),
		runtime.Version(), time.Now().UTC().Format("2006-01-02 15:04 MST"))
}

func pct(ds []float64, p int) float64 {
	s := append([]float64(nil), ds...)
	sort.Float64s(s)
	i := (len(s)*p + 99) / 100
	if i < 1 {
		i = 1
	}
	return s[i-1]
}

func kb(n int64) string { return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + " KB" }
func mb(n int64) string { return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB" }

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}
