// Command messaging measures paneteam's inbox delivery side by side with
// Claude Code's own algorithm, in one run, on this machine:
//
//   - contention: 50 concurrent senders x 20 messages into one inbox, with
//     the real `paneteam send` binary (one process per message, and one
//     `send --lines` process per sender) and with Claude Code 2.1.88's
//     writer (one Node process per sender, proper-lockfile, 10 retries from
//     5 to 100 ms, in-place rewrite): messages lost and wall time;
//   - latency: `paneteam send` to `paneteam inbox-watch` output, p50/p95,
//     next to Claude Code's reader, which polls every 1000 ms;
//   - growth: the cost of a write into an inbox holding 20,000 old read
//     messages against an empty one, for both.
//
// It is not part of `go test`; run it on demand from the repository root:
//
//	go run ./bench/messaging
//
// It needs node and npm (proper-lockfile is installed into a cache folder)
// and works in a temporary root, never in ~/.claude.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/team"
)

var (
	senders  = flag.Int("senders", 50, "concurrent senders in the contention run")
	perSend  = flag.Int("messages", 20, "messages per sender in the contention run")
	rounds   = flag.Int("rounds", 3, "contention rounds (each writer once per round, interleaved)")
	samples  = flag.Int("latency-samples", 100, "sends timed for latency")
	oldCount = flag.Int("old", 20000, "old read messages in the growth run")
	writes   = flag.Int("writes", 20, "writes timed per inbox in the growth run")
	before   = flag.String("before", "", "also build paneteam from this checkout (e.g. `git archive BASE | tar -x -C DIR`) and run its two contention writers in the same interleaved rounds")
	only     = flag.String("only", "", "run only this part: contention, latency or growth")
)

// bench is one run's shared setup: the binary, the temporary root, the
// Node peer.
type bench struct {
	bin    string // paneteam
	root   string
	team   team.Team
	node   string // node_modules holding proper-lockfile
	script string // Claude Code's inbox writer
	env    []string
}

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/messaging:", err)
		os.Exit(1)
	}
}

func run() error {
	switch *only {
	case "", "contention", "latency", "growth":
	default:
		return fmt.Errorf("-only %q: use contention, latency or growth", *only)
	}
	b, cleanup, err := setup()
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Printf("### Messaging (`go run ./bench/messaging`)\n\n%s, %s\n\n", time.Now().UTC().Format("2006-01-02"), machine())

	if *before != "" {
		bin := filepath.Join(filepath.Dir(b.bin), "paneteam-before")
		build := exec.Command("go", "build", "-o", bin, "./cmd/paneteam")
		build.Dir = *before
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("build paneteam in %s: %v\n%s", *before, err, out)
		}
		addBefore(bin)
	}
	part := func(name string) bool { return *only == "" || *only == name }
	if part("contention") {
		c, err := b.contention(*senders, *perSend, *rounds)
		if err != nil {
			return fmt.Errorf("contention: %w", err)
		}
		c.print(os.Stdout)
	}
	if part("latency") {
		l, err := b.latency(*samples)
		if err != nil {
			return fmt.Errorf("latency: %w", err)
		}
		l.print()
	}
	if part("growth") {
		g, err := b.growth(*oldCount, *writes)
		if err != nil {
			return fmt.Errorf("growth: %w", err)
		}
		g.print()
	}
	return nil
}

func setup() (*bench, func(), error) {
	tmp, err := os.MkdirTemp("", "paneteam-bench-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	fail := func(err error) (*bench, func(), error) { cleanup(); return nil, nil, err }
	mod, err := moduleRoot()
	if err != nil {
		return fail(err)
	}
	b := &bench{bin: filepath.Join(tmp, "paneteam"), root: filepath.Join(tmp, "root"),
		script: filepath.Join(mod, "internal", "tests", "testutil", "claude_inbox_writer.js")}
	build := exec.Command("go", "build", "-o", b.bin, "./cmd/paneteam")
	build.Dir = mod
	if out, err := build.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("build paneteam: %v\n%s", err, out))
	}
	if b.node, err = nodeModules(); err != nil {
		return fail(err)
	}
	t, _, err := team.Create(b.root, "bench", team.CreateOptions{Now: time.Now()})
	if err != nil {
		return fail(err)
	}
	b.team = t
	if _, err := t.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		for _, n := range []string{"lat", "empty", "full", "cempty", "cfull"} {
			if _, err := c.AddMember(team.Member{Name: n, Cwd: tmp}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return fail(err)
	}
	b.env = childEnv("PANETEAM_ROOT="+b.root, "NODE_PATH="+b.node)
	return b, cleanup, nil
}

// paneteam runs the binary with args.
func (b *bench) paneteam(args ...string) *exec.Cmd {
	cmd := exec.Command(b.bin, args...)
	cmd.Env = b.env
	return cmd
}

// claudeWriter runs Claude Code's writer: count messages "<prefix>-<i>".
func (b *bench) claudeWriter(inbox, prefix string, count int) *exec.Cmd {
	cmd := exec.Command("node", b.script, inbox, "claude", prefix, fmt.Sprint(count))
	cmd.Env = b.env
	return cmd
}

// nodeModules installs proper-lockfile 4 (the line Claude Code uses) into
// the cache folder the tests use, once.
func nodeModules() (string, error) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("%s is needed for the Claude Code reference: install it", tool)
		}
	}
	cache := os.Getenv("PANETEAM_NODE_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		cache = filepath.Join(base, "paneteam-test-node")
	}
	mods := filepath.Join(cache, "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "proper-lockfile", "package.json")); err == nil {
		return mods, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	out, err := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", cache, "proper-lockfile@4").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm install proper-lockfile@4: %v\n%s", err, out)
	}
	return mods, nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" || strings.TrimSpace(string(out)) == os.DevNull {
		return "", fmt.Errorf("run from inside the paneteam module: go run ./bench/messaging")
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

// childEnv is the environment without anything that would point a child at
// the user's own team, tmux or root.
func childEnv(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PANETEAM_") || k == "CLAUDE_CONFIG_DIR" || k == "TMUX" || k == "TMUX_PANE" || k == "NODE_PATH" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

func machine() string {
	model := runtime.GOARCH
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	node, _ := exec.Command("node", "--version").Output()
	return fmt.Sprintf("%s/%s, %d CPUs (%s), %s, node %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), model,
		runtime.Version(), strings.TrimSpace(string(node)))
}
