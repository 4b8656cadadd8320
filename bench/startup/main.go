// Command startup measures what one paneteam process costs, as a
// keybinding, a status-line refresh or a shell loop pays it: the CPU time
// (user + system) of whole processes, from the kernel's accounting of each
// finished child (wait4's rusage, which includes the grandchildren the
// child waited for, such as the tmux client `status --format tmux` runs).
//
// In one run it builds paneteam, an empty Go program and a minimal
// urfave/cli/v3 program with one command (bench/startup/empty and
// bench/startup/minurfave; v3 is what paneteam's command line is built on,
// so the yardstick is the library's own cost) with the same toolchain and
// flags, into a
// temporary folder, then runs every case interleaved, -runs times each, and
// compares medians with the empty program's, which cancels part of what a
// busy shared machine adds:
//
//   - paneteam send from one member of a team of ten to another, as a
//     shell loop sends: at most 1.6x bench/startup/sendfloor, an empty
//     program doing only the file work the lock and a durable write need
//     (the least a send can cost in one process), run over the same inbox,
//     so both see an inbox of the same size;
//   - paneteam --version: at most 1.15x the minimal urfave/cli/v3
//     program's --version; --help is measured beside its --help;
//   - paneteam status --format tmux --panes, as the tmux plugin and
//     tmux.conf.example run it, for a team of 10 members in tmux panes on
//     a private tmux server: at most 4x empty. The same without --panes
//     (its one tmux client included) is measured beside it.
//
// Every child runs with a paneteam state folder and a config folder of
// the run's own temporary folder (childEnv), so nothing is written under
// the user's.
//
// It is not part of `go test`; run it on demand from the repository root:
//
//	go run ./bench/startup
//
// Only the Go toolchain is needed (and tmux for the status case, which is
// skipped with a SKIPPED line without it). It never touches ~/.claude or
// the user's tmux server. -before DIR also builds paneteam from another
// checkout (the base of a change, say from `git archive BASE | tar -x -C
// DIR`) and measures it in the same interleaved run, which is how
// before/after figures stay comparable on a shared machine; -src builds
// "paneteam" itself from another checkout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/paneteam/paneteam/internal/core/launches"
	"github.com/paneteam/paneteam/lockfile"
	"github.com/paneteam/paneteam/mailbox"
	"github.com/paneteam/paneteam/team"
	"github.com/paneteam/paneteam/tmux"
)

var (
	runs    = flag.Int("runs", 30, "runs of each case")
	src     = flag.String("src", "", "module root to build paneteam from (default: this module)")
	members = flag.Int("members", 10, "members of the team in tmux panes for the status case")
	before  = flag.String("before", "", "also build paneteam from this checkout (e.g. `git worktree` or `git archive` of the base) and measure it in the same interleaved run")
	spentMB = flag.Int("transcript-mb", 10, "size of each member's Claude Code transcript (MB) in the status case, whose spending the status line shows; 0 for none")
	keep    = flag.String("setup", "", "only set up the status case's team and tmux server in this folder, print how to run it, and leave them (for profiling)")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/startup:", err)
		os.Exit(1)
	}
}

// a case is one command line measured.
type benchCase struct {
	name string
	kind string // version, help, send, status: which target applies
	argv []string
	env  []string
	// check, when set, judges the output of one run before timing starts,
	// so that a case measuring an error path is caught.
	check func(out string) error
	// optional: a case the binary may not know (an older build); it is
	// left out when its first run fails.
	optional bool
	cpu      []time.Duration
	wall     []time.Duration
}

func (c *benchCase) median() (cpu, wall time.Duration) { return median(c.cpu), median(c.wall) }

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func run() error {
	if *keep != "" {
		dir, err := filepath.Abs(*keep)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		s, _, err := statusTeam(dir, *members)
		if err != nil {
			return err
		}
		fmt.Printf("PANETEAM_ROOT=%s PANETEAM_STATE_DIR=%s paneteam status --format tmux\nstop the server with: tmux -S %s kill-server\n", s.root, s.state, s.socket)
		return nil
	}
	tmp, err := os.MkdirTemp("", "paneteam-startup-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	mod, err := moduleRoot()
	if err != nil {
		return err
	}
	ptSrc := mod
	if *src != "" {
		if ptSrc, err = filepath.Abs(*src); err != nil {
			return err
		}
	}
	bins := map[string]string{}
	for _, b := range []struct{ name, dir, pkg string }{
		{"paneteam", ptSrc, "./cmd/paneteam"},
		{"empty", mod, "./bench/startup/empty"},
		{"minurfave", mod, "./bench/startup/minurfave"},
		{"sendfloor", mod, "./bench/startup/sendfloor"},
		{"paneteam-before", *before, "./cmd/paneteam"},
	} {
		if b.dir == "" {
			continue
		}
		out := filepath.Join(tmp, "bin", b.name)
		cmd := exec.Command("go", "build", "-o", out, b.pkg)
		cmd.Dir = b.dir
		if msg, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v\n%s", b.name, err, msg)
		}
		bins[b.name] = out
	}

	load0 := loadavg()
	sendRoot := filepath.Join(tmp, "send-root")
	if err := sendTeam(sendRoot); err != nil {
		return err
	}
	base := childEnv(tmp)
	with := func(kv ...string) []string { return append(base[:len(base):len(base)], kv...) }
	cases := []*benchCase{
		{name: "empty program", argv: []string{bins["empty"]}, env: base},
		{name: "minimal urfave/cli/v3 --version", argv: []string{bins["minurfave"], "--version"}, env: base},
		{name: "minimal urfave/cli/v3 --help", argv: []string{bins["minurfave"], "--help"}, env: base},
	}
	srv, stop, err := statusTeam(tmp, *members)
	switch {
	case errors.Is(err, errNoTmux):
		fmt.Println("SKIPPED: status --format tmux: tmux is not installed")
	case err != nil:
		return err
	default:
		defer stop()
	}
	// After paneteam's own send (below) has made bob's inbox.
	floor := &benchCase{name: "send's file work alone (bench/startup/sendfloor), same inbox", kind: "floor", argv: []string{bins["sendfloor"], sendTo},
		env: with("PANETEAM_ROOT=" + sendRoot)}
	for _, v := range []struct{ label, bin string }{{"paneteam", bins["paneteam"]}, {"before: paneteam", bins["paneteam-before"]}} {
		pt := v.bin
		if pt == "" {
			continue
		}
		cases = append(cases,
			&benchCase{name: v.label + " --version", kind: "version", argv: []string{pt, "--version"}, env: base},
			&benchCase{name: v.label + " --help", kind: "help", argv: []string{pt, "--help"}, env: base},
			&benchCase{name: v.label + " send", kind: "send", argv: []string{pt, "send", "--team", "bench", "--from", sendFrom, "--to", sendTo, "a message from a shell loop"},
				env: with("PANETEAM_ROOT=" + sendRoot)})
		if floor != nil {
			cases, floor = append(cases, floor), nil
		}
		if srv.root == "" {
			continue
		}
		want := fmt.Sprintf("bench ▶%d ⏸%d", (*members+1)/2, *members/2)
		check := func(out string) error {
			if !strings.HasPrefix(out, want) || !strings.Contains(out, "✉3") {
				return fmt.Errorf("status --format tmux printed %q, want %q... with ✉3", out, want)
			}
			if *spentMB > 0 && !strings.Contains(out, "$") {
				return fmt.Errorf("status --format tmux printed %q, want the team's spending ($...) read from its transcripts", out)
			}
			return nil
		}
		// As the plugin and tmux.conf.example run it: tmux hands it the
		// panes of its server (the listing is expanded once here, by the
		// server, as tmux expands it before each refresh).
		cases = append(cases, &benchCase{
			name: fmt.Sprintf("%s status --format tmux --panes (%d panes)", v.label, *members), kind: "status",
			argv: []string{pt, "status", "--format", "tmux", "--panes", srv.panes},
			env:  with("PANETEAM_ROOT="+srv.root, "TMUX="+srv.socket+",1,0"), check: check, optional: true,
		}, &benchCase{
			name: fmt.Sprintf("%s status --format tmux, asking tmux (%d panes)", v.label, *members), kind: "status-asking",
			argv: []string{pt, "status", "--format", "tmux"},
			env:  with("PANETEAM_ROOT="+srv.root, "TMUX="+srv.socket+",1,0"), check: check,
		})
	}
	var kept []*benchCase
	for _, c := range cases {
		cmd := exec.Command(c.argv[0], c.argv[1:]...)
		cmd.Env = c.env
		out, err := cmd.CombinedOutput()
		if err != nil && c.optional {
			fmt.Printf("SKIPPED: %s: %v (a build from before --panes)\n", c.name, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", c.name, err, out)
		}
		if c.check != nil {
			if err := c.check(strings.TrimSpace(string(out))); err != nil {
				return err
			}
		}
		kept = append(kept, c)
	}
	cases = kept
	// The cases take turns, starting one further along each round, so a
	// busy spell of the machine falls on all of them alike.
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	for r := 0; r < *runs; r++ {
		for i := range cases {
			c := cases[(r+i)%len(cases)]
			cmd := exec.Command(c.argv[0], c.argv[1:]...)
			cmd.Env = c.env
			cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
			start := time.Now()
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			c.wall = append(c.wall, time.Since(start))
			ps := cmd.ProcessState
			c.cpu = append(c.cpu, ps.UserTime()+ps.SystemTime())
		}
	}
	load1 := loadavg()

	fmt.Printf("### Start-up (`go run ./bench/startup`)\n\n%s, %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), machine())
	fmt.Printf("load average before / after: %s / %s; %d runs of each case, interleaved; medians.\n\n", load0, load1, *runs)
	fmt.Println("| case | CPU (user+sys) | x empty | wall | target | |")
	fmt.Println("|---|---|---|---|---|---|")
	empty, _ := cases[0].median()
	verdict := func(ratio, limit float64) string {
		if ratio <= limit {
			return "met"
		}
		return "**not met**"
	}
	failed := false
	for _, c := range cases {
		cpu, wall := c.median()
		ratio := float64(cpu) / float64(empty)
		target, result := "", ""
		var against, limit float64
		switch c.kind {
		case "send":
			f, _ := floorCase(cases).median()
			against, limit = float64(cpu)/float64(f), 1.6
			target = fmt.Sprintf("<= 1.6x sendfloor: %.2fx", against)
		case "version":
			u, _ := cases[1].median()
			against, limit = float64(cpu)/float64(u), 1.15
			target = fmt.Sprintf("<= 1.15x urfave/cli/v3 --version: %.2fx", against)
		case "help":
			u, _ := cases[2].median()
			against = float64(cpu) / float64(u)
			target = fmt.Sprintf("%.2fx urfave/cli/v3 --help", against)
		case "status":
			target, against, limit = "<= 4x empty", ratio, 4
		}
		if limit > 0 {
			result = verdict(against, limit)
			failed = failed || against > limit
		}
		fmt.Printf("| %s | %s | %.2fx | %s | %s | %s |\n", c.name, ms(cpu), ratio, ms(wall), target, result)
	}
	if failed {
		fmt.Println("\nSome targets were not met.")
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// The send case: sendFrom writes to sendTo, two of the ten members.
const sendFrom, sendTo = "m1", "m2"

// sendTeam makes the team `paneteam send` writes into: a lead and ten
// members, m0 to m9.
func sendTeam(root string) error {
	t, _, err := team.Create(root, "bench", team.CreateOptions{Now: time.Now()})
	if err != nil {
		return err
	}
	_, err = t.Update(context.Background(), lockfile.Options{}, func(c *team.Config) error {
		for i := 0; i < 10; i++ {
			if _, err := c.AddMember(team.Member{Name: fmt.Sprintf("m%d", i), Cwd: root}); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// floorCase is the case send is held against.
func floorCase(cases []*benchCase) *benchCase {
	for _, c := range cases {
		if c.kind == "floor" {
			return c
		}
	}
	return &benchCase{}
}

var errNoTmux = errors.New("tmux is not installed")

type tmuxTeam struct {
	root, socket string
	// state is paneteam's state folder for the status case: the members'
	// launch records, and how far their transcripts were read.
	state string
	// panes is the server's panes as the status line's tmux hands them
	// to --panes (tmux.StatusPanesFormat, expanded by the server).
	panes string
}

// statusTeam starts a private tmux server holding n panes, each carrying
// its member's agent id as paneteam's spawn-pane leaves it, and a team of
// n members recorded in those panes (every other one busy), whose lead has
// 3 unread messages and each member 5 old ones.
func statusTeam(tmp string, n int) (tmuxTeam, func(), error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		return tmuxTeam{}, nil, errNoTmux
	}
	s := tmuxTeam{root: filepath.Join(tmp, "status-root"), socket: filepath.Join(tmp, "tmux.sock"), state: stateDir(tmp)}
	tmuxCmd := func(args ...string) (string, error) {
		cmd := exec.Command("tmux", append([]string{"-S", s.socket, "-f", os.DevNull}, args...)...)
		cmd.Env = childEnv(tmp)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out)), nil
	}
	stop := func() { _, _ = tmuxCmd("kill-server") }
	if _, err := tmuxCmd("new-session", "-d", "-s", "bench", "-x", "200", "-y", "50", "sleep 100000"); err != nil {
		return s, nil, err
	}
	fail := func(err error) (tmuxTeam, func(), error) { stop(); return s, nil, err }
	t, _, err := team.Create(s.root, "bench", team.CreateOptions{Now: time.Now()})
	if err != nil {
		return fail(err)
	}
	ctx := context.Background()
	var ms []team.Member
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("m%d", i)
		pane, err := tmuxCmd("new-window", "-d", "-t", "bench", "-P", "-F", "#{pane_id}", "sleep 100000")
		if err != nil {
			return fail(err)
		}
		active := i%2 == 0
		m := team.Member{Name: name, Cwd: tmp, TmuxPaneID: pane, BackendType: team.BackendTmux,
			IsActive: &active, Paneteam: &team.MemberMeta{TmuxSocket: s.socket}}
		m.AgentID = team.AgentID(name, t.Name)
		if _, err := tmuxCmd("set-option", "-p", "-t", pane, "@paneteam-agent", m.AgentID); err != nil {
			return fail(err)
		}
		ms = append(ms, m)
		var old []mailbox.Message
		for j := 0; j < 5; j++ {
			old = append(old, mailbox.Message{From: team.LeadName, Text: fmt.Sprintf("old %d", j), Timestamp: time.Now().UTC().Format(time.RFC3339Nano), Read: true})
		}
		if err := mailbox.New(t.InboxPath(name), lockfile.Options{}).Append(ctx, old...); err != nil {
			return fail(err)
		}
	}
	if _, err := t.Update(ctx, lockfile.Options{}, func(c *team.Config) error {
		for _, m := range ms {
			added, err := c.AddMember(m)
			if err != nil {
				return err
			}
			m.Color = added.Color
			*added = m
		}
		return nil
	}); err != nil {
		return fail(err)
	}
	var mail []mailbox.Message
	for j := 0; j < 3; j++ {
		mail = append(mail, mailbox.Message{From: "m0", Text: fmt.Sprintf("done %d", j), Timestamp: time.Now().UTC().Format(time.RFC3339Nano)})
	}
	if err := mailbox.New(t.InboxPath(team.LeadName), lockfile.Options{}).Append(ctx, mail...); err != nil {
		return fail(err)
	}
	if s.panes, err = tmuxCmd("display-message", "-p", tmux.StatusPanesFormat); err != nil {
		return fail(err)
	}
	if err := transcripts(s, t, ms, *spentMB); err != nil {
		return fail(err)
	}
	return s, stop, nil
}

// transcripts gives each member a launch record and a Claude Code
// transcript of mb MB, as a teammate that has worked a while has: the
// status line shows the team's spending, read from them. Its first run
// reads them whole (the case's check, before timing); each refresh
// after that reads only what was added, here nothing.
func transcripts(s tmuxTeam, t team.Team, ms []team.Member, mb int) error {
	if mb <= 0 {
		return nil
	}
	cfgDir := filepath.Join(filepath.Dir(s.state), "claude-config")
	store := launches.Open(s.state)
	pad := strings.Repeat("x", 400)
	for i, m := range ms {
		sid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		rec := launches.Record{Root: t.Root, Team: t.Name, Agent: m.Name, CLI: "claude", Via: "spawn-pane",
			Program: "claude", Cwd: m.Cwd, SessionID: sid, ConfigDir: cfgDir, Backend: "tmux", Pane: m.TmuxPaneID,
			Started: time.Now().UTC().Format(time.RFC3339)}
		if err := store.Write(rec); err != nil {
			return err
		}
		proj := strings.Map(func(r rune) rune {
			if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return r
			}
			return '-'
		}, m.Cwd)
		path := filepath.Join(cfgDir, "projects", proj, sid+".jsonl")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		var b strings.Builder
		for n := 0; b.Len() < mb<<20; n++ {
			// A reply of a text and a tool call: two lines, one usage.
			for _, kind := range []string{"text", "tool_use"} {
				fmt.Fprintf(&b, `{"type":"assistant","sessionId":%q,"message":{"id":"msg_%s_%d","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":%q,"text":%q}],"usage":{"input_tokens":10,"cache_creation_input_tokens":20,"cache_read_input_tokens":300,"output_tokens":40}}}`+"\n",
					sid, m.Name, n, kind, pad)
			}
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
			return err
		}
	}
	return nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run from inside the paneteam module: go run ./bench/startup")
	}
	return filepath.Dir(gomod), nil
}

// childEnv is the environment without anything that would point a child at
// the user's own team, tmux, root, state or config folder: paneteam keeps
// its state (launch records, usage cursors, keys) and reads its config in
// tmp, which the run removes, so the figures do not depend on the
// person's folders and the run leaves nothing in them.
func childEnv(tmp string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PANETEAM_") || k == "CLAUDE_CONFIG_DIR" || k == "TMUX" || k == "TMUX_PANE" || k == "GODEBUG" || k == "GOGC" ||
			k == "XDG_STATE_HOME" || k == "XDG_CONFIG_HOME" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PANETEAM_STATE_DIR="+stateDir(tmp), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"))
}

// stateDir is paneteam's state folder in tmp, the children's
// PANETEAM_STATE_DIR.
func stateDir(tmp string) string { return filepath.Join(tmp, "state") }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %s, %d CPUs, %s", runtime.GOOS, runtime.GOARCH, model, runtime.NumCPU(), runtime.Version())
}
